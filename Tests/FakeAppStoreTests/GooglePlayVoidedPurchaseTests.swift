import FakeAppStore
import Foundation
import Testing

/// `voidedpurchases.list`: from a start time, oldest first, paged; voids registered in process or over HTTP.
@Suite struct GooglePlayVoidedPurchaseTests {
    private static func entries(_ answer: GooglePlayTestClient.Answer) -> [[String: Any]] {
        answer.json["voidedPurchases"] as? [[String: Any]] ?? []
    }

    @Test func voidedPurchasesFromAStartTimeOldestFirstInPages() async throws {
        try await GooglePlayTestClient.with(.init(voidedPageSize: 2)) { client in
            let bearer = try await client.accessToken()
            // Google lists 30 days back at most: times from ten days ago, whole seconds.
            let base = (Int64(Date().timeIntervalSince1970) - 10 * 86_400) * 1000
            func at(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: Double(base / 1000 + seconds)) }
            let purchase = SyntheticPurchaseToken(
                productID: "gems",
                orderID: "GPA.1",
                purchaseTimeMilliseconds: base + 500
            )
            client.standIn.void(token: purchase.encoded(), orderID: "GPA.1", at: at(1))
            for (index, seconds) in [40, 20, 30, 50].enumerated() {
                client.standIn.void(token: "t\(index)", orderID: "GPA.1\(index)", reason: 7, at: at(Int64(seconds)))
            }

            let before = try await client.send(
                "GET",
                client.voidedURL("startTime=\(base)&maxResults=1"),
                bearer: bearer
            )
            let first = try #require(Self.entries(before).first)
            #expect(Self.entries(before).count == 1 && first["orderId"] as? String == "GPA.1")
            #expect(
                first["purchaseTimeMillis"] as? String == "\(base + 500)"
                    && first["voidedTimeMillis"] as? String == "\(base + 1000)"
            )
            #expect(first["kind"] as? String == "androidpublisher#voidedPurchase" && first["voidedSource"] as? Int == 0)
            #expect(first["purchaseToken"] as? String == purchase.encoded() && first["voidedReason"] as? Int == 1)

            var orders: [String] = []
            var page: String?
            repeat {
                let answer = try await client.send(
                    "GET",
                    client.voidedURL("startTime=\(base + 20000)&maxResults=1000" + (page.map { "&token=" + $0 } ?? "")),
                    bearer: bearer
                )
                #expect(answer.status == 200 && Self.entries(answer).count <= 2)
                orders += Self.entries(answer).compactMap { $0["orderId"] as? String }
                page = (answer.json["tokenPagination"] as? [String: Any])?["nextPageToken"] as? String
            } while page != nil
            #expect(orders == ["GPA.11", "GPA.12", "GPA.10", "GPA.13"])
            #expect(client.standIn.recordedVoidedQueries().map(\.startTime) == [base, base + 20000, base + 20000])
            #expect(client.standIn.recordedVoidedQueries().map { $0.token != nil } == [false, false, true])

            let none = try await client.send("GET", client.voidedURL("startTime=\(base + 60000)"), bearer: bearer)
            #expect(none.status == 200 && String(decoding: none.body, as: UTF8.self) == "{}")
            #expect(
                try await client.send("GET", client.voidedURL("startTime=\(base)&token=bogus"), bearer: bearer).status
                    == 400
            )
        }
    }

    @Test func otherProcessesVoidOverHTTP() async throws {
        try await GooglePlayTestClient.with { client in
            let voided = try await client.send(
                "POST",
                client.standIn.baseURL + "/fake/void",
                body: #"{"token":"t1","order_id":"GPA.9","reason":0}"#
            )
            #expect(voided.status == 204)
            #expect(try await client.send("POST", client.standIn.baseURL + "/fake/void", body: "{}").status == 400)
            let answer = try await client.send("GET", client.voidedURL(""), bearer: try await client.accessToken())
            let entry = try #require(Self.entries(answer).first)
            #expect(
                entry["purchaseToken"] as? String == "t1" && entry["orderId"] as? String == "GPA.9"
                    && entry["voidedReason"] as? Int == 0
            )
            #expect(answer.json["tokenPagination"] == nil)
        }
    }

    /// Google answers 400 to a `startTime` more than 30 days back; up to 30 days back is listed.
    @Test func aStartTimeOverThirtyDaysBackIsRefused() async throws {
        try await GooglePlayTestClient.with { client in
            let bearer = try await client.accessToken()
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            let tooOld = try await client.send(
                "GET",
                client.voidedURL("startTime=\(now - 31 * 86_400_000)"),
                bearer: bearer
            )
            #expect(tooOld.status == 400)
            let oldest = try await client.send(
                "GET",
                client.voidedURL("startTime=\(now - 30 * 86_400_000 + 60_000)"),
                bearer: bearer
            )
            #expect(oldest.status == 200)
            #expect(client.standIn.recordedVoidedQueries().map(\.httpStatus) == [400, 200])
        }
    }

    @Test func aPartialRefundIsListedWithItsQuantityOnlyWhenAskedFor() async throws {
        try await GooglePlayTestClient.with { client in
            let bearer = try await client.accessToken()
            let base = (Int64(Date().timeIntervalSince1970) - 86_400) * 1000
            client.standIn.void(
                token: "whole",
                orderID: "GPA.1",
                at: Date(timeIntervalSince1970: Double(base / 1000 + 1))
            )
            client.standIn.void(
                token: "some",
                orderID: "GPA.2",
                at: Date(timeIntervalSince1970: Double(base / 1000 + 2)),
                quantity: 2
            )
            let plain = try await client.send("GET", client.voidedURL("startTime=\(base)"), bearer: bearer)
            #expect(Self.entries(plain).compactMap { $0["orderId"] as? String } == ["GPA.1"])
            #expect(Self.entries(plain).first?["voidedQuantity"] == nil)
            let partial = try await client.send(
                "GET",
                client.voidedURL("startTime=\(base)&includeQuantityBasedPartialRefund=true"),
                bearer: bearer
            )
            #expect(Self.entries(partial).compactMap { $0["orderId"] as? String } == ["GPA.1", "GPA.2"])
            #expect(Self.entries(partial).last?["voidedQuantity"] as? Int == 2)
        }
    }
}

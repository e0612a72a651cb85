import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Transaction ids looked up with the App Store Server API: the sandbox fallback, not found, credentials refused,
/// Retry-After and the request rate shared by every daemon.
@Suite struct ServerAPILookupTests {
    private static func payload(_ id: String, environment: String = "Production") -> SignedTransactionPayload {
        SignedTransactionPayload(transactionId: id, productId: "gems", environment: environment)
    }

    @Test func anIdIsLookedUpInProductionThenTheSandbox() async throws {
        try await Fixture.with { f in
            f.standIn.register(Self.payload("8001"))
            f.standIn.register(Self.payload("8002", environment: "Sandbox"))
            try await f.enqueue("prod", transaction: "8001")
            try await f.enqueue("sandbox", user: "u2", transaction: "8002")
            try await f.enqueue("nowhere", user: "u3", transaction: "8003")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            #expect(try await f.order("prod")["outcome"] == "full")
            let sandbox = try await f.order("sandbox")
            #expect(sandbox["outcome"] == "full" && sandbox["environment"] == "Sandbox")
            let nowhere = try await f.order("nowhere")
            #expect(nowhere["outcome"] == "invalid" && nowhere["last_error"]?.contains("not found in production or sandbox") == true)
            let requests = f.standIn.recordedServerAPIRequests()
            #expect(requests.allSatisfy { $0.bearerFailure == nil })
            #expect(requests.filter { $0.transactionID == "8002" }.map(\.environment) == [.production, .sandbox])
            #expect(requests.filter { $0.transactionID == "8001" }.map(\.environment) == [.production])
            #expect(try await f.value("SELECT environment FROM iap.deliveries WHERE transaction_id = '8002'") == "Sandbox")
        }
    }

    @Test func refusedCredentialsAreRetriedAndCounted() async throws {
        let wrongKey = ServerAPITestKey.generate()
        try await Fixture.with(standIn: { $0.serverAPIKey = wrongKey.publicKey }) { f in
            f.standIn.register(Self.payload("8101"))
            try await f.enqueue("locked-out", transaction: "8101")
            try await f.withDaemons(settings: f.settings { $0.daemon.maxAttempts = 2 }) { _ in try await f.waitUntilSettled() }
            let order = try await f.order("locked-out")
            #expect(order["state"] == "failed" && order["attempts"] == "2")
            #expect(order["last_error"]?.contains("HTTP 401") == true)
            #expect(try await f.value("SELECT count(*) FROM iap.attempts WHERE error_class = 'credentials'") == "2")
            #expect(f.standIn.recordedServerAPIRequests().allSatisfy { $0.httpStatus == 401 && $0.bearerFailure != nil })
        }
    }

    @Test func transientErrorsAreRetried() async throws {
        try await Fixture.with { f in
            // The last is a 404 without Apple's JSON (a wrong URL, a proxy): it says nothing about the transaction.
            let steps = [ScriptStep(http: 500), ScriptStep(errorCode: 5000001), ScriptStep(errorCode: 4040002), ScriptStep(http: 404)]
            f.standIn.register(Self.payload("8201"), script: steps)
            try await f.enqueue("flaky", transaction: "8201")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let order = try await f.order("flaky")
            #expect(order["outcome"] == "full" && order["attempts"] == "5")
        }
    }

    @Test func anAppleErrorCodeOtherThanTheTransientOnesIsInvalid() async throws {
        try await Fixture.with { f in
            f.standIn.register(Self.payload("8501"), script: [ScriptStep(http: 400, errorCode: 4000006)])
            try await f.enqueue("bad-id", transaction: "8501")
            try await f.withDaemons { _ in try await f.waitUntilSettled() }
            let order = try await f.order("bad-id")
            #expect(order["outcome"] == "invalid" && order["last_error"]?.contains("errorCode 4000006") == true)
        }
    }

    @Test func retryAfterHoldsEveryDaemon() async throws {
        try await Fixture.with { f in
            let until = Int64((Date().timeIntervalSince1970 + 1.5) * 1000)
            f.standIn.register(Self.payload("8301"), script: [ScriptStep(retryAfter: String(until), errorCode: 4290000)])
            try await f.enqueue("limited", transaction: "8301")
            try await f.withDaemons(count: 2) { _ in
                // Once the daemon has written the API's Retry-After for every daemon to see.
                try await f.waitUntil { try await f.value("SELECT blocked_until > now() FROM iap.api_pacing") == "t" }
                for index in 0..<10 {
                    f.standIn.register(Self.payload("831\(index)"))
                    try await f.enqueue("after-\(index)", user: "v\(index)", transaction: "831\(index)")
                }
                try await f.waitUntilSettled()
            }
            let limitedAt = try #require(f.standIn.recordedServerAPIRequests().first { $0.httpStatus == 429 }).receivedAt
            let later = f.standIn.recordedServerAPIRequests().filter { $0.receivedAt > limitedAt }
            #expect(later.count == 11)
            #expect(later.allSatisfy { $0.receivedAt.timeIntervalSince1970 * 1000 >= Double(until) - 5 })
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome = 'full'") == "11")
        }
    }

    @Test func twoDaemonsShareTheRequestRate() async throws {
        try await Fixture.with(standIn: { $0.serverAPIRateLimit = 6 }) { f in
            for index in 0..<20 {
                f.standIn.register(Self.payload("84\(index + 10)"))
                try await f.enqueue("paced-\(index)", user: "p\(index)", transaction: "84\(index + 10)")
            }
            let started = Date()
            // Two jobs in flight per daemon: neither can take all twenty, both must share the budget.
            let settings = f.settings {
                $0.storeKit.serverAPIRate = 5
                $0.daemon.concurrency = 2
            }
            try await f.withDaemons(count: 2, settings: settings) { _ in
                try await f.waitUntilSettled()
            }
            let requests = f.standIn.recordedServerAPIRequests()
            #expect(requests.count == 20 && requests.allSatisfy { $0.httpStatus == 200 })
            // Twenty requests at five a second take almost four seconds, wherever they were made.
            #expect(Date().timeIntervalSince(started) > 3.5)
            let times = requests.map(\.receivedAt).sorted()
            for (index, time) in times.enumerated() {
                #expect(times[index...].prefix { $0.timeIntervalSince(time) < 1 }.count <= 6)
            }
            #expect(try await f.value("SELECT count(DISTINCT daemon) FROM iap.attempts") == "2")
        }
    }
}

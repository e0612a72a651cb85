import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 22's ordering and sharing: an order's events in the order written across retries (other orders not
/// waiting), several daemons sharing the events without sending one twice, and secrets rotated.
extension WebhookDeliveryTests {
    @Test func anOrdersEventsKeepTheirOrderAcrossRetriesWhileOtherOrdersGoOn() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            let settings = try f.deliverySettings(receiver) {
                $0.retryDelays = Array(repeating: .milliseconds(400), count: 7)
            }
            let a1 = Fixture.webhookID()
            receiver.script([.status(500), .status(500), .status(500)], for: a1)
            try await f.writeWebhookEvent(a1, order: "A")
            let a2 = try await f.writeWebhookEvent(order: "A")
            let b1 = try await f.writeWebhookEvent(order: "B")
            let b2 = try await f.writeWebhookEvent(order: "B")
            let a3 = try await f.writeWebhookEvent(order: "A", type: "delivery.revoked")
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.webhook_events WHERE state = 'delivered'") == "5"
                }
            }
            let received = receiver.received()
            #expect(received.filter { [a1, a2, a3].contains($0.id) }.map(\.id) == [a1, a1, a1, a1, a2, a3])
            #expect(received.filter { [b1, b2].contains($0.id) }.map(\.id) == [b1, b2])
            #expect(received.allSatisfy { $0.verified })
            let delivered = receiver.delivered()
            // B did not wait for A's retries (three waits of 400 ms less jitter: over a second).
            let aDone = try #require(delivered.first { $0.id == a1 }).receivedAt
            for id in [b1, b2] {
                #expect((delivered.first { $0.id == id }?.receivedAt ?? .distantFuture) < aDone)
            }
            #expect(try await f.webhookEvent(a1)["attempts"] == "4")
            for id in [a2, a3, b1, b2] { #expect(try await f.webhookEvent(id)["attempts"] == "1") }
        }
    }

    @Test func severalDaemonsShareTheEventsWithoutSendingOneTwice() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            // A slow receiver keeps every daemon's slots busy, so that both claim.
            receiver.script(Array(repeating: .delayed(milliseconds: 20, status: 204), count: 60))
            let settings = try f.deliverySettings(receiver) { $0.concurrency = 4 }
            var ids: [String] = []
            for index in 0..<50 {
                ids.append(try await f.writeWebhookEvent(order: index % 5 == 0 ? nil : "m\(index % 10)"))
            }
            try await f.withDaemons(count: 2, settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.webhook_events WHERE state = 'delivered'") == "50"
                }
            }
            let received = receiver.received()
            #expect(received.count == 50)
            #expect(Set(received.map(\.id)) == Set(ids))
            #expect(received.allSatisfy { $0.verified && !$0.duplicate })
            #expect(try await f.value("SELECT count(*) FROM iap.webhook_events WHERE attempts <> 1") == "0")
            // Each order's events in the order written.
            for order in (1..<10).map({ "m\($0)" }) {
                let written = try await f.connection.execute(
                    "SELECT id FROM iap.webhook_events WHERE order_id = $1 ORDER BY seq",
                    [order]
                ).rows.compactMap { $0.first ?? nil }
                #expect(received.map(\.id).filter { written.contains($0) } == written, "\(order)")
            }
        }
    }

    @Test func rotatedSecretsSatisfyAReceiverTrustingEitherOne() async throws {
        let newer = "whsec_" + Data((0..<32).map { UInt8(255 - $0) }).base64EncodedString()
        let older = Fixture.webhookSecret
        let file = "\(newer)\n\(older)\n"
        try await Fixture.with { f in
            for trusted in [older, newer] {
                let receiver = try await Fixture.webhookReceiver(secrets: trusted)
                let id = try await f.writeWebhookEvent()
                try await f.withDaemons(settings: try f.deliverySettings(receiver, secrets: file)) { _ in
                    try await f.waitUntil { try await f.webhookEvent(id)["state"] == "delivered" }
                }
                try await receiver.shutdown()
                let received = receiver.received()
                #expect(received.map(\.id) == [id])
                #expect(received.allSatisfy { $0.verified }, "\(received.map(\.refusal))")
                // Two signatures, the new secret's first; a receiver trusting neither refuses.
                let request = try #require(received.first)
                let parts = request.signature.split(separator: " ").map(String.init)
                let body = Array(request.body.utf8)
                let timestamp = try #require(Int64(request.timestamp))
                #expect(
                    parts
                        == [newer, older].map {
                            try! WebhookSecret($0).signature(id: id, timestamp: timestamp, body: body)
                        }
                )
                let strangerSecret = try WebhookSecret("whsec_" + Data(repeating: 9, count: 32).base64EncodedString())
                let stranger = WebhookSignatureCheck(secrets: [strangerSecret])
                #expect(
                    stranger.refusal(id: id, timestamp: request.timestamp, signature: request.signature, body: body)
                        == "no signature matches"
                )
            }
        }
    }
}

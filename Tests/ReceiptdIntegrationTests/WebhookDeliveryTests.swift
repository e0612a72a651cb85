import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Webhooks end to end: a running daemon sends the events the database wrote to the stand-in receiver, signed as
/// Standard Webhooks specifies, and records what came of each attempt.
@Suite struct WebhookDeliveryTests {
    /// A paid order's `order.verified` arrives once, verified by the receiver's checks, and is recorded delivered.
    @Test func aVerifiedOrderIsToldToTheReceiverSigned() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            try await f.withDaemons(settings: try f.webhookSettings(receiver)) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT configured::text FROM iap.webhook_endpoint") == "true"
                }
                try await f.enqueue("o1", receipt: Receipts.paying("5001"))
                try await f.waitUntil { try await f.webhookEvents().first?["state"] == "delivered" }
            }
            let delivered = receiver.delivered()
            #expect(delivered.count == 1)
            #expect(delivered.first?.type == "order.verified")
            #expect(delivered.first?.verified == true)
            let events = try await f.webhookEvents()
            #expect(events.map { $0["type"] } == ["order.verified"])
            #expect(events.first?["id"] == delivered.first?.id)
            #expect(events.first?["attempts"] == "1")
            let body =
                try JSONSerialization.jsonObject(with: Data((delivered.first?.body ?? "").utf8)) as? [String: Any]
            let data = body?["data"] as? [String: Any]
            #expect(data?["order_id"] as? String == "o1")
            #expect(body?["timestamp"] is String)
        }
    }
}

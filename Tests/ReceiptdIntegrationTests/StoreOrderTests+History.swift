import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// The same two orders when one of the two notifications reached receiptd only through the catch-up from Get
/// Notification History (the intake missed its push).
extension StoreOrderTests {
    @Test func theCatchUpFindingTheReversalAppleSignedAfterARefundReinstatesTheRow() async throws {
        let receiver = try await Fixture.webhookReceiver()
        defer { Task { try? await receiver.shutdown() } }
        try await Fixture.with { f in
            try await Self.withStores(f, receiver: receiver) { stores in
                try await Self.deliver(f, "8821", order: "o1")
                let signed = Self.now
                #expect(try await Self.send(f, stores, "REFUND", "8821", signedDate: signed - 60_000) == "revoked")
                #expect(
                    try await Self.send(f, stores, "REFUND_REVERSED", "8821", signedDate: signed, pushed: false)
                        == "reinstated"
                )
                #expect(try await Self.ledger(f, "8821") == (false, signed))
                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "0")
            }
            #expect(
                try await WebhookEventTests.written(f) == [
                    "order.verified o1", "delivery.revoked o1", "delivery.reinstated o1",
                ]
            )
        }
    }

    @Test func theCatchUpFindingARefundAppleSignedBeforeTheReversalChangesNothing() async throws {
        let receiver = try await Fixture.webhookReceiver()
        defer { Task { try? await receiver.shutdown() } }
        try await Fixture.with { f in
            try await Self.withStores(f, receiver: receiver) { stores in
                try await Self.deliver(f, "8831", order: "o1")
                try await Self.deliver(f, "8832", order: "o2")
                let signed = Self.now
                #expect(
                    try await Self.send(f, stores, "REFUND_REVERSED", "8831", signedDate: signed)
                        == "nothing_to_reinstate"
                )
                #expect(
                    try await Self.send(f, stores, "REFUND", "8831", signedDate: signed - 60_000, pushed: false)
                        == "superseded"
                )
                #expect(try await Self.ledger(f, "8831") == (false, signed))

                // Refunded and reinstated through the intake; the catch-up then finds a refund signed between.
                #expect(try await Self.send(f, stores, "REFUND", "8832", signedDate: signed - 120_000) == "revoked")
                #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8832'])") == "1")
                #expect(try await Self.send(f, stores, "REFUND_REVERSED", "8832", signedDate: signed) == "reinstated")
                #expect(try await f.value("SELECT iap.mark_granted('o2')") == "1")
                #expect(
                    try await Self.send(f, stores, "REFUND", "8832", signedDate: signed - 60_000, pushed: false)
                        == "superseded"
                )
                #expect(try await Self.ledger(f, "8832") == (false, signed))

                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "0")
                #expect(try await f.value("SELECT count(*) FROM iap.revoked_transactions") == "0")
                #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE granted_at IS NOT NULL") == "2")
            }
            #expect(
                try await WebhookEventTests.written(f) == [
                    "order.verified o1", "order.verified o2", "delivery.revoked o2", "delivery.reinstated o2",
                ]
            )
        }
    }
}

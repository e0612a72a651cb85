import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue #32, item 1: a transaction's store news takes effect in the store's own order, whatever order it arrives
/// in. Each ledger row keeps `store_time`, the store's time of the last news applied to it; older news changes
/// nothing and its notification's result is `superseded`. Apple's notifications are signed by the stand-in App
/// Store and reach receiptd through the real intake (this file) and through the history catch-up
/// (StoreOrderTests+History.swift); Google's through a push and the voided poll (StoreOrderTests+Google.swift).
@Suite struct StoreOrderTests {
    /// What a test drives while the intake and a daemon run.
    struct Stores {
        /// The intake's `POST /notifications/apple`.
        var intake: String
        /// The daemon's catch-up from Get Notification History (it polls once at start, then when asked).
        var poller: NotificationHistoryPoller
    }

    static var now: Int64 { SignedTransactionPayload.nowMilliseconds() }

    /// Runs the intake and a daemon sending webhooks to `receiver` whose catch-up has polled once, while `body`
    /// runs.
    static func withStores(
        _ f: Fixture,
        receiver: WebhookReceiverStandIn,
        _ body: (Stores) async throws -> Void
    ) async throws {
        let settings = try f.webhookSettings(receiver) { $0.storeKit.notificationHistoryInterval = .seconds(3600) }
        let environments = settings.daemon.sandbox == .accept ? "2" : "1"
        try await AppleNotificationIntakeTests.withIntake(f) { intake in
            try await f.withDaemons(settings: settings) { daemons in
                try await WebhookEventTests.waitUntilConfigured(f)
                try await f.waitUntil {
                    try await f.value(
                        "SELECT count(*) FROM iap.notification_history_cursor WHERE polled_at IS NOT NULL"
                    ) == environments
                }
                let poller = try #require(daemons[0].companions.compactMap { $0 as? NotificationHistoryPoller }.first)
                // The first poll may still hold the catch-up's lock: a poll asked for meanwhile does not run.
                try await f.waitUntil { try await poller.pollOnce() != nil }
                try await body(Stores(intake: "http://127.0.0.1:\(intake.port)/notifications/apple", poller: poller))
            }
        }
    }

    /// Delivers transaction `id` to a new order of alice through a client's signed transaction; the game grants it.
    static func deliver(_ f: Fixture, _ id: String, order: String) async throws {
        let jws = f.standIn.testChain.signedTransaction(SignedTransactionPayload(transactionId: id, productId: "gems"))
        try await f.enqueue(order, user: "alice", transaction: jws)
        try await f.waitUntilSettled()
        #expect(try await f.value("SELECT iap.mark_granted($1)", [order]) == "1")
    }

    /// Has the stand-in sign a `REFUND` or `REFUND_REVERSED` of transaction `id` at `signedDate` and post it to the
    /// intake, or (`pushed` false) keep it in its history only, where the catch-up finds it; returns the result
    /// processing gave it.
    static func send(
        _ f: Fixture,
        _ stores: Stores,
        _ type: String,
        _ id: String,
        signedDate: Int64,
        pushed: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> String? {
        let refund = type == "REFUND"
        let sent = try await f.standIn.sendNotification(
            ServerAPINotificationOrder(
                notificationType: type,
                transaction: SignedTransactionPayload(
                    transactionId: id,
                    productId: "gems",
                    revocationDate: refund ? signedDate : nil,
                    revocationReason: refund ? 1 : nil
                ),
                signedDate: signedDate,
                url: pushed ? stores.intake : nil,
                deliver: pushed
            )
        )
        if pushed {
            #expect(sent.httpStatus == 200, sourceLocation: sourceLocation)
        } else {
            #expect(try await stores.poller.pollOnce() == 1, sourceLocation: sourceLocation)
        }
        try await f.waitUntil {
            try await f.value(
                "SELECT processed_at IS NOT NULL FROM iap.store_notifications WHERE notification_id = $1",
                [sent.notificationUUID]
            ) == "t"
        }
        let row = try await f.row(
            "SELECT source, result FROM iap.store_notifications WHERE notification_id = $1",
            [sent.notificationUUID]
        )
        #expect(row["source"] == (pushed ? "push" : "history"), sourceLocation: sourceLocation)
        return row["result"]
    }

    /// The ledger row of transaction `id`: whether it is revoked, and its `store_time` in milliseconds.
    static func ledger(_ f: Fixture, _ id: String) async throws -> (revoked: Bool, storeTime: Int64?) {
        let row = try await f.row(
            """
            SELECT revoked_at IS NOT NULL AS revoked, round(extract(epoch FROM store_time) * 1000)::bigint AS store_ms
            FROM iap.deliveries WHERE transaction_id = $1
            """,
            [id]
        )
        return (row["revoked"] == "t", row["store_ms"].flatMap(Int64.init))
    }

    @Test func aRefundThenTheReversalAppleSignedLaterReinstateTheRow() async throws {
        let receiver = try await Fixture.webhookReceiver()
        defer { Task { try? await receiver.shutdown() } }
        try await Fixture.with { f in
            try await Self.withStores(f, receiver: receiver) { stores in
                try await Self.deliver(f, "8801", order: "o1")
                let signed = Self.now
                #expect(try await Self.send(f, stores, "REFUND", "8801", signedDate: signed - 60_000) == "revoked")
                #expect(try await Self.ledger(f, "8801") == (true, signed - 60_000))
                #expect(try await Self.send(f, stores, "REFUND_REVERSED", "8801", signedDate: signed) == "reinstated")
                #expect(try await Self.ledger(f, "8801") == (false, signed))
                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "0")
            }
            #expect(
                try await WebhookEventTests.written(f) == [
                    "order.verified o1", "delivery.revoked o1", "delivery.reinstated o1",
                ]
            )
        }
    }

    @Test func aRefundArrivingAfterTheReversalAppleSignedLaterIsSupersededAndTheRowStaysDelivered() async throws {
        let receiver = try await Fixture.webhookReceiver()
        defer { Task { try? await receiver.shutdown() } }
        try await Fixture.with { f in
            try await Self.withStores(f, receiver: receiver) { stores in
                try await Self.deliver(f, "8811", order: "o1")
                try await Self.deliver(f, "8812", order: "o2")
                let signed = Self.now
                // The reversal arrives first (the refund's push failed, and Apple retries it later).
                #expect(
                    try await Self.send(f, stores, "REFUND_REVERSED", "8811", signedDate: signed)
                        == "nothing_to_reinstate"
                )
                #expect(try await Self.ledger(f, "8811") == (false, signed))
                #expect(try await Self.send(f, stores, "REFUND", "8811", signedDate: signed - 60_000) == "superseded")
                #expect(try await Self.ledger(f, "8811") == (false, signed))

                // Refunded and reinstated in Apple's order; then a refund Apple signed before the reversal.
                #expect(try await Self.send(f, stores, "REFUND", "8812", signedDate: signed - 120_000) == "revoked")
                #expect(try await Self.send(f, stores, "REFUND_REVERSED", "8812", signedDate: signed) == "reinstated")
                #expect(try await Self.send(f, stores, "REFUND", "8812", signedDate: signed - 60_000) == "superseded")
                #expect(try await Self.ledger(f, "8812") == (false, signed))

                // Nothing is handed back to the game, nor remembered for a later sweep to revoke.
                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "0")
                #expect(try await f.value("SELECT count(*) FROM iap.revoked_transactions") == "0")
                #expect(try await f.value("SELECT count(*) FROM iap.owed_deliveries('alice')") == "0")
                #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE granted_at IS NOT NULL") == "2")
                // Equal times are not older: the same news applies again as before.
                #expect(
                    try await Self.send(f, stores, "REFUND_REVERSED", "8812", signedDate: signed)
                        == "nothing_to_reinstate"
                )
            }
            #expect(
                try await WebhookEventTests.written(f) == [
                    "order.verified o1", "order.verified o2", "delivery.revoked o2", "delivery.reinstated o2",
                ]
            )
        }
    }
}

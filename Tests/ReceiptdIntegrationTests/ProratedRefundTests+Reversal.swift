import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// A reversed prorated refund (issue 47): `REFUND_REVERSED` lifts the share as it lifts a whole revocation; the units
/// the game had taken back are owed again, and only those.
extension ProratedRefundTests {
    /// Processes every due notification here, without a daemon (a daemon's start would write the webhook endpoint).
    private func processAll(_ f: Fixture) async throws {
        let pool = DatabasePool(connectionString: f.database.connectionString, maximumConnections: 1)
        let queue = PostgresJobQueue(
            pool: pool,
            owner: "test:1:processing",
            planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: SyntheticReceipt.defaultBundleID)
        )
        while try await !queue.processNotifications(
            limit: 20,
            planner: NotificationPlanner(),
            backoff: Backoff(base: .milliseconds(50), maximum: .milliseconds(200))
        ).isEmpty {}
        await pool.close()
    }

    /// A signed transaction of subscription period `id` (product `vip`), refunded by `percentage` when given.
    private static func period(_ id: String, percentage: Int? = nil) -> SignedTransactionPayload {
        let now = SignedTransactionPayload.nowMilliseconds()
        return SignedTransactionPayload(
            transactionId: id,
            productId: "vip",
            purchaseDate: now - 60_000,
            type: "Auto-Renewable Subscription",
            revocationDate: percentage == nil ? nil : now,
            revocationReason: percentage == nil ? nil : 0,
            revocationType: percentage == nil ? nil : "REFUND_PRORATED",
            revocationPercentage: percentage,
            expiresDate: now + 3_600_000,
            subscriptionGroupIdentifier: "21000001",
            webOrderLineItemId: "w-" + id
        )
    }

    /// `transaction_id:quantity:reinstated_quantity` of what the game owes alice.
    private func owedDeliveries(_ f: Fixture) async throws -> String? {
        try await f.value(
            """
            SELECT string_agg(transaction_id || ':' || quantity || ':' || coalesce(reinstated_quantity::text, '-'), ','
                              ORDER BY transaction_id)
            FROM iap.owed_deliveries('alice')
            """
        )
    }

    @Test func aReversedShareIsLiftedAndOnlyTheUnitsTheGameTookBackAreOwedAgain() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.create_order('sub', 'alice', 'vip')")
            try await f.withDaemons { _ in
                // Handled before the reversal: 7 units, 1 unit, a subscription's period; not handled: 7 units, 1 unit.
                try await deliver(f, "8701", quantity: 7, order: "seven")
                try await deliver(f, "8702", quantity: 1, order: "one")
                try await deliver(f, "8703", quantity: 7, order: "seven-unhandled")
                try await deliver(f, "8704", quantity: 1, order: "one-unhandled")
                try await f.enqueue(
                    "sub",
                    user: "alice",
                    product: "vip",
                    transaction: f.standIn.testChain.signedTransaction(Self.period("8705"))
                )
                try await f.waitUntilSettled()
            }
            for order in ["seven", "one", "seven-unhandled", "one-unhandled", "sub"] {
                #expect(try await f.value("SELECT iap.mark_granted($1)", [order]) == "1")
            }
            #expect(try await owedDeliveries(f) == nil)
            try await f.configureWebhooks()
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_verified")

            let start = SignedTransactionPayload.nowMilliseconds() - 120_000
            var refunds: [Int64] = []
            for (id, quantity) in [("8701", 7), ("8702", 1), ("8703", 7), ("8704", 1)] {
                refunds.append(try await refund(f, id, quantity: quantity, percentage: 40_000, signedDate: start))
            }
            refunds.append(
                try await f.recordNotification(
                    "REFUND",
                    transaction: Self.period("8705", percentage: 40_000),
                    signedDate: start
                )
            )
            try await processAll(f)
            for id in refunds { try await f.expectProcessed(id, "revoked") }
            #expect(try await ledger(f, "8701") == "false:2:40000:refund_prorated")
            #expect(try await ledger(f, "8705") == "false:0:40000:refund_prorated")
            #expect(try await f.value("SELECT iap.refunds_in_90_days('alice')") == "5")
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['8701', '8702', '8705'])") == "3")
            _ = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 100) }

            // Apple reverses every refund a minute later.
            var reversals: [Int64] = []
            for (id, quantity) in [("8701", 7), ("8702", 1), ("8703", 7), ("8704", 1)] {
                reversals.append(
                    try await f.recordNotification(
                        "REFUND_REVERSED",
                        transaction: Self.transaction(id, quantity: quantity),
                        signedDate: start + 60_000
                    )
                )
            }
            reversals.append(
                try await f.recordNotification(
                    "REFUND_REVERSED",
                    transaction: Self.period("8705"),
                    signedDate: start + 60_000
                )
            )
            try await processAll(f)
            for id in reversals { try await f.expectProcessed(id, "reinstated") }
            // The share is gone from every row, handled or not; nothing is owed to take back.
            for id in ["8701", "8702", "8703", "8704", "8705"] {
                #expect(try await ledger(f, id) == "false:0:-:-", "\(id)")
            }
            #expect(try await owed(f) == nil)
            // Only the 2 units the game took back of 8701 are owed again; the row stays granted. 40% of one unit took
            // no whole unit back, and a share not handled took nothing.
            #expect(try await owedDeliveries(f) == "8701:7:2")
            #expect(
                try await f.value("SELECT granted_at IS NOT NULL FROM iap.deliveries WHERE transaction_id = '8701'")
                    == "t"
            )
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'seven'") == "verified")
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 1_000) }
            #expect(notes.filter { $0.channel == "iap_verified" }.map(\.payload).contains { $0.contains("\"seven\"") })
            #expect(!notes.contains { $0.payload.contains("unhandled") || $0.payload.contains("\"one\"") })
            await listener.close()
            // The refunds no longer count (RECEIPTD_REFUND_ABUSE_LIMIT, the auto policy).
            #expect(try await f.value("SELECT iap.refunds_in_90_days('alice')") == "0")
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(payload ->> 'transaction_id' || ':' || (payload ->> 'reinstated_quantity') || ':'
                                      || (payload ->> 'granted'), ',' ORDER BY payload ->> 'transaction_id')
                    FROM iap.webhook_events WHERE type = 'delivery.reinstated'
                    """
                ) == "8701:2:true,8702:0:true,8703:0:true,8704:0:true,8705:0:true"
            )

            // The game grants the 2 units: nothing is owed, and the order is finished again.
            #expect(try await f.value("SELECT iap.mark_granted('seven', ARRAY['8701'])") == "1")
            #expect(try await f.value("SELECT iap.mark_granted('seven', ARRAY['8701'])") == "0")
            #expect(try await owedDeliveries(f) == nil)
            #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'seven'") == "finished")

            // A later, smaller prorated refund applies: the lifted share no longer stands in its way.
            let later = [
                try await refund(f, "8701", quantity: 7, percentage: 30_000),
                try await refund(f, "8702", quantity: 1, percentage: 30_000),
            ]
            try await processAll(f)
            for id in later { try await f.expectProcessed(id, "revoked") }
            #expect(try await owed(f) == "8701:2:30000:refund_prorated,8702:0:30000:refund_prorated")
            #expect(try await f.value("SELECT iap.refunds_in_90_days('alice')") == "2")
        }
    }
}

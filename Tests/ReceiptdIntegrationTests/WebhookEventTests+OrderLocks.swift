import Foundation
import ReceiptdCore
import Testing

/// Every event of an order takes the order's row lock before its `seq` (issue #47, item 8): for each event type a
/// daemon transaction writes that event of order `o1` and stays open while a second one revokes another of the
/// order's rows. The second waits for the first's commit, no sender takes its event meanwhile, and `seq` follows
/// commit order. `refund.requested` and the `subscription.*` events took no lock before.
extension WebhookEventTests {
    /// One event type and the daemon's change that writes it: `setup` runs committed first (as the owner), `change`
    /// in the open transaction.
    struct LockedEvent: CustomTestStringConvertible, Sendable {
        let type: String
        let setup: String
        let change: String
        var testDescription: String { type }

        static let subscriptionRow = """
            INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until,
                                           expires_at, latest_transaction_id, store_time, order_id, auto_renew)
            VALUES ('apple:7000', 'apple', 'u1', 'vip', 'active', now() + interval '1 day', now() + interval '1 day',
                    '7000', now(), 'o1', true)
            """

        static let all: [LockedEvent] = [
            LockedEvent(
                type: "order.verified",
                setup: "",
                change: """
                    INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment)
                    VALUES ('t3', 'o1', 'u1', 'gems', 1, 'Production')
                    """
            ),
            LockedEvent(
                type: "delivery.revoked",
                setup: "",
                change:
                    "UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'refund' WHERE transaction_id = 't1'"
            ),
            LockedEvent(
                type: "delivery.reinstated",
                setup:
                    "UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'refund' WHERE transaction_id = 't1'",
                change:
                    "UPDATE iap.deliveries SET revoked_at = NULL, revocation_reason = NULL WHERE transaction_id = 't1'"
            ),
            LockedEvent(
                type: "payment.unclaimed",
                setup: "",
                change: """
                    INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, user_id,
                                                        order_id, first_seen_at)
                    VALUES ('9001', 'gems', 1, 'Production', 'u1', 'o1', now())
                    """
            ),
            LockedEvent(
                type: "order.failed",
                setup: "",
                change: "UPDATE iap.orders SET outcome = 'failed', outcome_at = now() WHERE order_id = 'o1'"
            ),
            LockedEvent(
                type: "refund.requested",
                setup: "",
                change: """
                    WITH n AS (
                        INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                            environment, signed_at, source, payload, processed_at, result)
                        VALUES ('apple', gen_random_uuid()::text, 'CONSUMPTION_REQUEST', 't1', 'Production', now(),
                                'push', '{}', now(), 'consumption_requested')
                        RETURNING id, notification_id, signed_at
                    )
                    INSERT INTO iap.refund_requests (notification_id, request_id, store, transaction_id, environment,
                        user_id, reason, signed_at, received_at, answer_by)
                    SELECT id, notification_id, 'apple', 't1', 'Production', 'u1', 'UNINTENDED_PURCHASE', signed_at,
                           now(), signed_at + interval '12 hours'
                    FROM n
                    """
            ),
            LockedEvent(type: "subscription.started", setup: "", change: subscriptionRow),
            LockedEvent(
                type: "subscription.renewed",
                setup: subscriptionRow,
                change: """
                    UPDATE iap.subscriptions SET expires_at = expires_at + interval '30 days',
                        entitled_until = entitled_until + interval '30 days' WHERE subscription_id = 'apple:7000'
                    """
            ),
            LockedEvent(
                type: "subscription.state_changed",
                setup: subscriptionRow,
                change: "UPDATE iap.subscriptions SET auto_renew = false WHERE subscription_id = 'apple:7000'"
            ),
            LockedEvent(
                type: "subscription.expired",
                setup: subscriptionRow,
                change: """
                    UPDATE iap.subscriptions SET state = 'expired', entitled_until = NULL
                    WHERE subscription_id = 'apple:7000'
                    """
            ),
            LockedEvent(
                type: "subscription.revoked",
                setup: subscriptionRow,
                change: """
                    UPDATE iap.subscriptions SET state = 'revoked', entitled_until = NULL
                    WHERE subscription_id = 'apple:7000'
                    """
            ),
            LockedEvent(
                type: "subscription.transferred",
                setup: subscriptionRow,
                change: "UPDATE iap.subscriptions SET user_id = 'u2' WHERE subscription_id = 'apple:7000'"
            ),
        ]
    }

    @Test(arguments: LockedEvent.all)
    func everyEventOfAnOrderWaitsForTheOrdersLock(_ event: LockedEvent) async throws {
        try await Fixture.with { f in
            // What the setup wrote is sent already: only the two transactions' events are left.
            let (pool, queue) = try await Self.orderWithTwoRows(f, setup: event.setup)

            let worker = try await f.loginRole(in: "receiptd_worker")
            let first = try await PostgresConnection.connect(worker)
            let second = try await PostgresConnection.connect(worker)
            try await first.execute("BEGIN")
            try await first.execute(event.change)
            let secondCommitted = Task {
                try await second.execute(
                    """
                    UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'refund'
                    WHERE transaction_id = 't2'
                    """
                )
                return ContinuousClock.now
            }
            try await Task.sleep(for: .seconds(1))
            let meanwhile = try await queue.claimWebhookEvents(limit: 10, lease: .seconds(60))
            let firstCommitting = ContinuousClock.now
            try await first.execute("COMMIT")
            let secondAt = try await secondCommitted.value
            #expect(meanwhile.isEmpty, "an event of the order was sent while an earlier one was uncommitted")
            #expect(secondAt > firstCommitting, "the revocation did not wait for the \(event.type) writer's commit")
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(type, ',' ORDER BY seq) FROM iap.webhook_events
                    WHERE order_id = 'o1' AND state <> 'delivered'
                    """
                ) == "\(event.type),delivery.revoked"
            )
            for connection in [first, second] { await connection.close() }
            await pool.close()
        }
    }
}

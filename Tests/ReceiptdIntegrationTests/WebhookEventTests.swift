import Foundation
import ReceiptdCore
import Testing

/// The events the database writes to `iap.webhook_events` (sql/routines/09_webhooks.sql), at SQL level: the writes
/// are made as the roles that make them (a settle as `receiptd_worker`, the game's calls as `receiptd_app`), in
/// the transaction of the change. This file: when events are written and when not, and what each one's `data`
/// holds; WebhookEventTests+Paths.swift drives the same through running daemons and the stand-in stores.
@Suite struct WebhookEventTests {
    /// The events written so far, in the order written, as `type order_id` (`-` for no order).
    static func written(_ f: Fixture) async throws -> [String] {
        try await f.connection.execute(
            "SELECT type || ' ' || coalesce(order_id, '-') AS event FROM iap.webhook_events ORDER BY seq"
        ).rows.compactMap { $0.first ?? nil }
    }

    /// The top-level fields of the `data` of the `index`th event written (0 first), as text (`null` for JSON null;
    /// an array or object as JSON).
    static func data(_ f: Fixture, _ index: Int) async throws -> [String: String] {
        let rows = try await f.connection.execute(
            """
            SELECT d.key, coalesce(d.value, 'null') AS value
            FROM (SELECT payload FROM iap.webhook_events ORDER BY seq OFFSET $1 LIMIT 1) w
            CROSS JOIN LATERAL jsonb_each_text(w.payload) AS d(key, value)
            """,
            [index]
        ).namedRows
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.string("key"), try $0.string("value")) })
    }

    /// The fields of a ledger row's `delivery.revoked`.
    static let revokedFields: Set<String> = [
        "order_id", "user_id", "store", "transaction_id", "product_id", "quantity", "granted", "revoked_quantity",
        "reason", "revoked_at", "revocation_percentage",
    ]

    @Test func nothingIsWrittenWithoutAnEndpointAndAChangeRolledBackLeavesNoEvent() async throws {
        try await Fixture.with { f in
            // No daemon runs with RECEIPTD_WEBHOOK_URL: changes of every kind write nothing.
            #expect(try await f.value("SELECT configured::text FROM iap.webhook_endpoint") == "false")
            try await RevocationHandOffTests.deliver(f, order: "o1", transaction: "t1")
            try await RevocationHandOffTests.revoke(f, "t1")
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, user_id, order_id, job_id)
                VALUES ('u-1', 'gems', 1, 'u1', 'o1', 0)
                """
            )
            try await f.enqueue("o-bad", receipt: Receipts.paying("2"))
            try await f.setOutcome("o-bad", "invalid")
            #expect(try await Self.written(f) == [])

            // Configured: each change rolled back leaves nothing, though its transaction saw its event.
            try await f.configureWebhooks()
            let session = try await f.database.connect()
            for change in [
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity)
                VALUES ('t9', 'o1', 'u1', 'gems', 1)
                """,
                "UPDATE iap.deliveries SET revoked_at = NULL, revocation_reason = NULL WHERE transaction_id = 't1'",
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, user_id, order_id, job_id)
                VALUES ('u-2', 'gems', 1, 'u1', 'o1', 0)
                """,
                "UPDATE iap.orders SET outcome = 'failed' WHERE order_id = 'o1'",
            ] {
                try await session.execute("BEGIN")
                try await session.execute(change)
                #expect(
                    try await session.execute("SELECT count(*) FROM iap.webhook_events").rows == [["1"]],
                    "\(change)"
                )
                try await session.execute("ROLLBACK")
            }
            await session.close()
            #expect(try await Self.written(f) == [])

            // The same changes committed write one event each.
            try await RevocationHandOffTests.deliver(f, order: "o2", transaction: "t2")
            try await f.connection.execute(
                "UPDATE iap.deliveries SET revoked_at = NULL, revocation_reason = NULL WHERE transaction_id = 't1'"
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, user_id, order_id, job_id)
                VALUES ('u-2', 'gems', 1, 'u1', 'o1', 0)
                """
            )
            try await f.setOutcome("o2", "failed")
            #expect(
                try await Self.written(f) == [
                    "order.verified o2", "delivery.reinstated o1", "payment.unclaimed o1", "order.failed o2",
                ]
            )
            // Turned off again (the daemons run without a URL): nothing more.
            try await f.configureWebhooks(false)
            try await RevocationHandOffTests.revoke(f, "t2")
            #expect(try await Self.written(f).count == 4)
        }
    }

    @Test func oneStatementPayingTwoOrdersWritesOneVerifiedEventPerOrderWithItsRows() async throws {
        try await Fixture.with { f in
            try await TrustRuleTests.withRoles(f) { roles in
                try await f.configureWebhooks()
                for (order, user) in [("o1", "u1"), ("o2", "u2"), ("o3", "u1")] {
                    try await f.connection.execute("SELECT iap.create_order($1, $2, 'gems', 2)", [order, user])
                }
                // A settle's batch: two orders in one statement, as the daemon.
                try await TrustRuleTests.settle(roles.worker, ["o2", "o1"])
                #expect(try await Self.written(f) == ["order.verified o1", "order.verified o2"])
                let first = try await Self.data(f, 0)
                #expect(Set(first.keys) == ["order_id", "user_id", "store", "provisional", "deliveries"])
                #expect(first["order_id"] == "o1" && first["user_id"] == "u1" && first["store"] == "apple")
                #expect(first["provisional"] == "false")
                let rows = try #require(
                    try JSONSerialization.jsonObject(with: Data((first["deliveries"] ?? "").utf8)) as? [[String: Any]]
                )
                #expect(rows.count == 1)
                #expect(
                    Set(rows[0].keys) == ["transaction_id", "product_id", "quantity", "purchase_date", "environment"]
                )
                #expect(rows[0]["transaction_id"] as? String == "paid-o1" && rows[0]["quantity"] as? Int == 2)
                #expect(rows[0]["product_id"] as? String == "gems" && rows[0]["environment"] as? String == "Production")
                #expect(try await Self.data(f, 1)["user_id"] == "u2")

                // Two rows of one order in one statement: one event listing both, by transaction id.
                _ = try await roles.worker.execute(
                    """
                    INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment,
                                                purchase_date)
                    VALUES ('t-b', 'o3', 'u1', 'gems', 1, 'Sandbox', '2026-01-02T03:04:05.5+01'),
                           ('t-a', 'o3', 'u1', 'gems', 1, 'Sandbox', NULL)
                    """
                )
                #expect(try await Self.written(f).count == 3)
                let both = try await f.value(
                    """
                    SELECT string_agg(d ->> 'transaction_id' || '@' || coalesce(d ->> 'purchase_date', '-'), ',')
                    FROM iap.webhook_events w CROSS JOIN LATERAL jsonb_array_elements(w.payload -> 'deliveries') d
                    WHERE w.order_id = 'o3'
                    """
                )
                // In UTC, whatever the writer's time zone.
                #expect(both == "t-a@-,t-b@2026-01-02T02:04:05.5+00:00")
                // Ids are Standard Webhooks style (`msg_…`) and unique; every event starts pending.
                #expect(
                    try await f.value(
                        "SELECT count(DISTINCT id) FROM iap.webhook_events WHERE id ~ '^msg_[0-9a-f]{32}$' AND state = 'pending'"
                    ) == "3"
                )
            }
        }
    }

    @Test func aRevocationRecordedAgainWritesNothingAndRevokeReinstateRevokeWritesThree() async throws {
        try await Fixture.with { f in
            try await RevocationHandOffTests.deliver(f, order: "o1", transaction: "t1", quantity: 2, granted: true)
            try await f.configureWebhooks()
            try await RevocationHandOffTests.revoke(f, "t1", reason: "refund_app_issue", percentage: 37_500)
            // Recorded again (a resent REFUND, a revocation whose time or reason is rewritten): nothing new.
            try await RevocationHandOffTests.revoke(f, "t1", reason: "refund_other", secondsAgo: 30)
            try await f.connection.execute("UPDATE iap.deliveries SET revoked_quantity = 2 WHERE transaction_id = 't1'")
            #expect(try await Self.written(f) == ["delivery.revoked o1"])
            let revoked = try await Self.data(f, 0)
            #expect(Set(revoked.keys) == Self.revokedFields)
            #expect(
                revoked["transaction_id"] == "t1" && revoked["quantity"] == "2" && revoked["revoked_quantity"] == "2"
                    && revoked["reason"] == "refund_app_issue" && revoked["granted"] == "true"
                    && revoked["revocation_percentage"] == "37500" && revoked["store"] == "apple"
                    && revoked["user_id"] == "u1" && revoked["order_id"] == "o1"
            )
            #expect(revoked["revoked_at"]?.hasSuffix("+00:00") == true)

            // Lifted (REFUND_REVERSED), then revoked again: three events in all.
            try await f.connection.execute(
                "UPDATE iap.deliveries SET revoked_at = NULL, revocation_reason = NULL, granted_at = NULL WHERE transaction_id = 't1'"
            )
            try await RevocationHandOffTests.revoke(f, "t1")
            #expect(
                try await Self.written(f) == ["delivery.revoked o1", "delivery.reinstated o1", "delivery.revoked o1"]
            )
            let reinstated = try await Self.data(f, 1)
            #expect(
                Set(reinstated.keys) == [
                    "order_id", "user_id", "store", "transaction_id", "product_id", "quantity", "granted",
                    "reinstated_quantity",
                ]
            )
            // Not granted: all its units are owed again.
            #expect(
                reinstated["granted"] == "false" && reinstated["quantity"] == "2"
                    && reinstated["reinstated_quantity"] == "2"
            )
        }
    }

    @Test func partialRefundsWriteARevocationEachTimeMoreUnitsAreRevoked() async throws {
        try await Fixture.with { f in
            try await RevocationHandOffTests.deliver(f, order: "o1", transaction: "GPA.1", quantity: 3)
            try await f.connection.execute("UPDATE iap.deliveries SET store = 'google'")
            try await f.configureWebhooks()
            let units = "UPDATE iap.deliveries SET revoked_quantity = $1 WHERE transaction_id = 'GPA.1'"
            try await f.connection.execute(units, [1])
            try await f.connection.execute(units, [1])
            try await f.connection.execute(units, [2])
            #expect(try await Self.written(f) == ["delivery.revoked o1", "delivery.revoked o1"])
            let first = try await Self.data(f, 0)
            #expect(Set(first.keys) == Self.revokedFields)
            #expect(first["revoked_quantity"] == "1" && first["quantity"] == "3" && first["revoked_at"] == "null")
            #expect(first["store"] == "google")
            #expect(try await Self.data(f, 1)["revoked_quantity"] == "2")
            // The rest refunded whole: every unit, once.
            try await f.connection.execute(
                "UPDATE iap.deliveries SET revoked_at = now(), revocation_reason = 'voided' WHERE transaction_id = 'GPA.1'"
            )
            try await f.connection.execute(units, [3])
            #expect(try await Self.written(f).count == 3)
            let whole = try await Self.data(f, 2)
            #expect(whole["revoked_quantity"] == "3" && whole["reason"] == "voided")

            // A purchase delivered after a partial refund of it was recorded: verified, then its units revoked.
            try await f.connection.execute(
                "INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity) VALUES ('GPA.2', now(), 1)"
            )
            try await f.connection.execute("SELECT iap.create_order('o2', 'u1', 'gems', 2)")
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, store)
                VALUES ('GPA.2', 'o2', 'u1', 'gems', 2, 'google')
                """
            )
            #expect(Array(try await Self.written(f).suffix(2)) == ["order.verified o2", "delivery.revoked o2"])
            let early = try await Self.data(f, 4)
            #expect(early["revoked_quantity"] == "1" && early["quantity"] == "2" && early["transaction_id"] == "GPA.2")
            #expect(
                try await f.value(
                    "SELECT revoked_quantity FROM iap.owed_revocations('u1') WHERE transaction_id = 'GPA.2'"
                )
                    == "1"
            )
        }
    }

    @Test func eachEndingInvalidOrFailedIsOneFailureAndARetryThatFailsAgainIsAnother() async throws {
        try await Fixture.with { f in
            try await TrustRuleTests.withRoles(f) { roles in
                try await f.configureWebhooks()
                try await TrustRuleTests.failingOrder(f, "o-failed", quantity: 2)
                try await TrustRuleTests.failingOrder(f, "o-invalid", user: "u2")
                try await TrustRuleTests.failingOrder(f, "o-paid", user: "u3")
                // One statement ends two orders (a settle's batch); the paying one is no failure.
                try await TrustRuleTests.end(roles.worker, ["o-failed", "o-invalid"], "failed")
                try await roles.worker.execute(
                    "UPDATE iap.orders SET outcome = 'invalid', outcome_at = now() WHERE order_id = 'o-invalid'"
                )
                try await TrustRuleTests.settle(roles.worker, ["o-paid"])
                #expect(
                    try await Self.written(f) == [
                        "order.failed o-failed", "order.failed o-invalid", "order.failed o-invalid",
                        "order.verified o-paid",
                    ]
                )
                #expect(
                    try await Self.data(f, 0) == [
                        "order_id": "o-failed", "user_id": "u1", "product_id": "gems", "quantity": "2",
                        "outcome": "failed", "delivered_quantity": "0",
                    ]
                )
                #expect(try await Self.data(f, 2)["outcome"] == "invalid")
                // Rewriting the same ending, or the order's status, is no new ending.
                try await roles.worker.execute(
                    "UPDATE iap.orders SET outcome = outcome, outcome_at = outcome_at, status = status"
                )
                #expect(try await Self.written(f).count == 4)
                // An operator retries the failed order, and it fails again: the game is told again.
                _ = try await roles.operations.execute("SELECT iap.retry_order('o-failed')")
                try await TrustRuleTests.end(roles.worker, ["o-failed"], "failed")
                #expect(try await Self.written(f).last == "order.failed o-failed")
                #expect(try await Self.written(f).count == 5)
            }
        }
    }

    @Test func aProvisionalGrantIsVerifiedAndItsRefutationOrExchangeIsARevocation() async throws {
        try await Fixture.with { f in
            try await TrustRuleTests.withRoles(f) { roles in
                try await f.configureWebhooks()
                try await TrustRuleTests.failingOrder(f, "o-forged", user: "u1", quantity: 2)
                try await TrustRuleTests.failingOrder(f, "o-more", user: "u2")
                #expect(try await TrustRuleTests.grant(roles.worker).count == 2)
                #expect(try await Self.written(f) == ["order.verified o-forged", "order.verified o-more"])
                let verified = try await Self.data(f, 0)
                #expect(
                    verified["provisional"] == "true" && verified["store"] == "apple" && verified["user_id"] == "u1"
                )
                #expect(
                    verified["deliveries"]
                        == #"[{"quantity": 2, "product_id": "gems", "transaction_id": "provisional:o-forged"}]"#
                )
                // The game's grant and the handling of nothing write nothing.
                _ = try await roles.game.execute("SELECT iap.mark_granted('o-more')")
                #expect(try await Self.written(f).count == 2)

                // Verification ends: o-forged invalid (refuted), o-more paid by 3 units (exchanged for the real row).
                try await TrustRuleTests.end(roles.worker, ["o-forged"], "invalid")
                _ = try await roles.worker.execute(
                    """
                    WITH ledger AS (
                        INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment)
                        VALUES ('paid-o-more', 'o-more', 'u2', 'gems', 3, 'Production') RETURNING order_id
                    )
                    UPDATE iap.orders o SET delivered_quantity = 3, outcome = 'full', outcome_at = now(), status = 'verified'
                    FROM ledger l WHERE o.order_id = l.order_id
                    """
                )
                #expect(
                    try await Self.written(f) == [
                        "order.verified o-forged", "order.verified o-more", "order.failed o-forged",
                        "delivery.revoked o-forged", "order.verified o-more", "delivery.revoked o-more",
                    ]
                )
                let failed = try await Self.data(f, 2)
                #expect(
                    failed == [
                        "order_id": "o-forged", "user_id": "u1", "product_id": "gems", "quantity": "2",
                        "outcome": "invalid", "delivered_quantity": "0",
                    ]
                )
                let refuted = try await Self.data(f, 3)
                #expect(Set(refuted.keys) == Self.revokedFields)
                #expect(
                    refuted["transaction_id"] == "provisional:o-forged" && refuted["reason"] == "provisional_refuted"
                        && refuted["revoked_quantity"] == "2" && refuted["granted"] == "false"
                )
                let replaced = try await Self.data(f, 5)
                #expect(
                    replaced["transaction_id"] == "provisional:o-more" && replaced["reason"] == "provisional_replaced"
                        && replaced["revoked_quantity"] == "1" && replaced["granted"] == "true"
                )
                // As the game reads them: the same ids and reasons.
                #expect(
                    try await f.value(
                        "SELECT transaction_id || ':' || revocation_reason FROM iap.owed_revocations('u2')"
                    ) == "provisional:o-more:provisional_replaced"
                )
                // Handling the revocations writes nothing.
                _ = try await roles.game.execute(
                    "SELECT iap.mark_revocation_handled(ARRAY['provisional:o-forged', 'provisional:o-more'])"
                )
                #expect(try await Self.written(f).count == 6)
            }
        }
    }
}

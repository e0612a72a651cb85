import Foundation
import ReceiptdCore
import Testing

/// The store-neutral subscription model in the database (`iap.subscriptions`): what `iap.entitlements` says a
/// player may use, the history and `NOTIFY iap_subscription` each change writes, and the catalogue's `periods`.
@Suite struct SubscriptionModelTests {
    /// A subscription row of `user` in `state`, entitled for `entitledFor` seconds from now (none when nil).
    private func subscription(
        _ f: Fixture,
        _ id: String,
        user: String = "u1",
        product: String = "vip",
        state: String,
        entitledFor: Double?
    ) async throws {
        try await f.connection.execute(
            """
            INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until,
                expires_at, store_time)
            VALUES ($1, 'apple', $2, $3, $4, now() + make_interval(secs => $5::float8),
                    now() + make_interval(secs => coalesce($5::float8, -60)), now())
            """,
            [id, user, product, state, entitledFor]
        )
    }

    private func deliver(
        _ f: Fixture,
        _ transactionID: String,
        product: String,
        kind: String,
        revoked: Bool = false
    )
        async throws
    {
        try await f.connection.execute(
            """
            INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome)
            VALUES ('o-' || $1, 'u1', $2, 1, 1, 'full')
            """,
            [transactionID, product]
        )
        try await f.connection.execute(
            """
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store,
                product_kind, revoked_at)
            VALUES ($1, 'o-' || $1, 'u1', $2, 1, 'Production', 'apple', $3, CASE WHEN $4 THEN now() END)
            """,
            [transactionID, product, kind, revoked]
        )
    }

    @Test func entitlementsAreTheSubscriptionsInForceAndTheNonConsumablesOwned() async throws {
        try await Fixture.with { f in
            try await subscription(f, "apple:1", product: "vip", state: "active", entitledFor: 3600)
            try await subscription(f, "apple:2", product: "pass", state: "grace_period", entitledFor: 600)
            try await subscription(f, "apple:3", product: "old", state: "active", entitledFor: -1)
            try await subscription(f, "apple:4", product: "late", state: "billing_retry", entitledFor: nil)
            try await subscription(f, "apple:5", product: "gone", state: "expired", entitledFor: nil)
            try await subscription(f, "apple:6", user: "u2", product: "vip", state: "active", entitledFor: 3600)
            try await deliver(f, "81", product: "sword", kind: "non_consumable")
            try await deliver(f, "82", product: "sword", kind: "non_consumable")
            try await deliver(f, "83", product: "shield", kind: "non_consumable", revoked: true)
            try await deliver(f, "84", product: "gems", kind: "consumable")
            // The game's role may ask.
            let game = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app"))
            let rows = try await game.execute(
                "SELECT product_id, kind, subscription_id, state, entitled_until IS NOT NULL AS timed FROM iap.entitlements('u1')"
            ).rows
            await game.close()
            #expect(
                rows == [
                    ["pass", "auto_renewable", "apple:2", "grace_period", "t"],
                    ["sword", "non_consumable", nil, nil, "f"],
                    ["vip", "auto_renewable", "apple:1", "active", "t"],
                ]
            )
            // Not entitled and still in force is refused: a state without an entitlement keeps none.
            await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    "UPDATE iap.subscriptions SET state = 'expired' WHERE subscription_id = 'apple:1'"
                )
            }
        }
    }

    @Test func eachChangeIsKeptAndAChangeOfStateIsNotified() async throws {
        try await Fixture.with { f in
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_subscription")
            try await subscription(f, "apple:9", state: "active", entitledFor: 3600)
            // A new period: history, no notification (the state stays).
            try await f.connection.execute(
                "UPDATE iap.subscriptions SET entitled_until = entitled_until + interval '30 days' WHERE true"
            )
            // Nothing that matters changes: nothing kept.
            try await f.connection.execute("UPDATE iap.subscriptions SET updated_at = now() WHERE true")
            try await f.connection.execute(
                "UPDATE iap.subscriptions SET state = 'billing_retry', entitled_until = NULL WHERE true"
            )
            // Each read returns what has arrived so far: read until both are in, or a read brings nothing.
            var payloads: [String] = []
            while payloads.count < 2 {
                let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
                if notes.isEmpty { break }
                payloads += notes.filter { $0.channel == "iap_subscription" }.map(\.payload)
            }
            await listener.close()
            #expect(payloads.count == 2, "\(payloads)")
            let last = try #require(
                try JSONSerialization.jsonObject(with: Data((payloads.last ?? "").utf8)) as? [String: String]
            )
            #expect(last == ["subscription_id": "apple:9", "user_id": "u1", "state": "billing_retry"])
            #expect(
                try await f.value("SELECT string_agg(state, ',' ORDER BY id) FROM iap.subscription_history")
                    == "active,active,billing_retry"
            )
        }
    }

    @Test func periodsFalseIsForAutoRenewablesOnly() async throws {
        try await Fixture.with { f in
            for (kind, periods) in [("consumable", "false"), ("non_consumable", "false"), ("auto_renewable", "NULL")] {
                do {
                    try await f.connection.execute(
                        "SELECT iap.define_product('apple', 'x', $1, \(periods))",
                        [kind]
                    )
                    Issue.record("\(kind) with periods \(periods) was taken")
                } catch let error as PostgresError {
                    #expect(error.sqlState == "22023", "\(error)")
                }
            }
            #expect(try await f.value("SELECT count(*) FROM iap.products") == "0")
            try await f.connection.execute(
                "SELECT iap.define_product(store => 'google', product_id => 'card', kind => 'auto_renewable', periods => false)"
            )
            #expect(try await f.value("SELECT periods::text FROM iap.products") == "false")
        }
    }
}

import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as the receiptd of migration 21 left it, with a delivered purchase owed to the game and a product
    /// the game declared, upgrades to migration 22: the purchase is still owed (no subscription), the product keeps
    /// its kind with periods, and the game's calls of before still work beside the new ones.
    @Test func aDatabaseAtMigrationTwentyOneUpgradesToSubscriptions() async throws {
        let database = try await Self.database(migratedTo: 21)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome)
                VALUES ('o-1', 'u1', 'sword', 1, 1, 'full')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store,
                    product_kind)
                VALUES ('7101', 'o-1', 'u1', 'sword', 1, 'Production', 'apple', 'non_consumable')
                """
            )
            try await f.connection.execute(
                "INSERT INTO iap.products (store, product_id, kind, source) VALUES ('apple', 'sword', 'non_consumable', 'game')"
            )

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            let owed = try await f.row(
                "SELECT transaction_id, provisional::text, subscription_id, period_start FROM iap.owed_deliveries('u1')"
            )
            #expect(owed["transaction_id"] == "7101" && owed["provisional"] == "false")
            #expect(owed["subscription_id"] == nil && owed["period_start"] == nil)
            #expect(try await f.value("SELECT periods::text FROM iap.products WHERE product_id = 'sword'") == "true")
            // The three-argument call of before declares with periods, as the new default says.
            try await f.connection.execute("SELECT iap.define_product('apple', 'vip', 'auto_renewable')")
            try await f.connection.execute("SELECT iap.define_product('apple', 'card', 'auto_renewable', false)")
            #expect(
                try await f.value(
                    "SELECT string_agg(product_id || ':' || periods, ',' ORDER BY product_id) FROM iap.products"
                )
                    == "card:false,sword:true,vip:true"
            )
            #expect(
                try await f.value("SELECT count(*) FROM pg_proc WHERE proname = 'define_product'") == "1"
            )
            let owned = try await f.row("SELECT store, product_id, kind, subscription_id FROM iap.entitlements('u1')")
            #expect(
                owned["product_id"] == "sword" && owned["kind"] == "non_consumable" && owned["subscription_id"] == nil
            )
        }
    }

    /// A database as migration 22 left it, holding an active subscription, an expired one and a delivered period,
    /// upgrades to migration 23: the active one is watched from its entitlement's end, the expired one is never read
    /// again, and the period is still owed.
    @Test func aDatabaseAtMigrationTwentyTwoUpgradesToSubscriptionReads() async throws {
        let database = try await Self.database(migratedTo: 22)
        try await Fixture.with(database: database) { f in
            try await f.script(
                """
                INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until,
                                               expires_at, latest_transaction_id, store_time)
                VALUES ('apple:8100', 'apple', 'u1', 'vip', 'active', now() + interval '1 day', now() + interval '1 day',
                        '8100', now()),
                       ('apple:8200', 'apple', 'u2', 'vip', 'expired', NULL, now() - interval '1 day', '8200', now());
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome)
                VALUES ('o-8100', 'u1', 'vip', 1, 1, 'full');
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store,
                                            subscription_id, period_start, period_end)
                VALUES ('8100', 'o-8100', 'u1', 'vip', 1, 'Production', 'apple', 'apple:8100', now(),
                        now() + interval '1 day');
                """
            )
            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value(
                    "SELECT read_due_at = entitled_until FROM iap.subscriptions WHERE subscription_id = 'apple:8100'"
                ) == "t"
            )
            #expect(
                try await f.value("SELECT read_due_at FROM iap.subscriptions WHERE subscription_id = 'apple:8200'")
                    == nil
            )
            #expect(try await f.value("SELECT subscription_id FROM iap.owed_deliveries('u1')") == "apple:8100")
            // The watch's SQL works on the upgraded rows.
            #expect(
                try await f.value(
                    "SELECT iap.subscription_read_due('billing_retry', NULL) > now() + interval '5 hours'"
                )
                    == "t"
            )
        }
    }

    /// A database as migration 24 left it, holding a Google purchase whose acknowledgement is owed and an App Store
    /// subscription, upgrades to migration 25: the owed call stays owed, the subscription has no token, and a
    /// subscription's acknowledgement and a Google subscription with its token can be written.
    @Test func aDatabaseAtMigrationTwentyFourUpgradesToGoogleSubscriptions() async throws {
        let database = try await Self.database(migratedTo: 24)
        try await Fixture.with(database: database) { f in
            try await f.script(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome)
                VALUES ('g-1', 'u1', 'sword', 1, 1, 'full');
                INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action,
                                                      overdue_at)
                VALUES ('GPA.1', 'g-1', 'sword', 'tok-1', 'acknowledge', now() + interval '1 hour');
                INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until,
                                               expires_at, latest_transaction_id, store_time)
                VALUES ('apple:8300', 'apple', 'u1', 'vip', 'active', now() + interval '1 day',
                        now() + interval '1 day', '8300', now());
                """
            )
            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT action || ':' || (done_at IS NULL) FROM iap.google_finalizations")
                    == "acknowledge:true"
            )
            #expect(try await f.value("SELECT purchase_token FROM iap.subscriptions") == nil)
            try await f.script(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome)
                VALUES ('g-2', 'u2', 'vip', 1, 1, 'full');
                INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action,
                                                      overdue_at)
                VALUES ('GPA.2', 'g-2', 'vip', 'tok-2', 'acknowledge_subscription', now() + interval '1 hour');
                INSERT INTO iap.subscriptions (subscription_id, store, user_id, product_id, state, entitled_until,
                                               expires_at, latest_transaction_id, store_time, purchase_token)
                VALUES ('google:GPA.2', 'google', 'u2', 'vip', 'active', now() + interval '1 day',
                        now() + interval '1 day', 'GPA.2', now(), 'tok-2');
                """
            )
            #expect(
                try await f.value("SELECT subscription_id FROM iap.subscriptions WHERE purchase_token = 'tok-2'")
                    == "google:GPA.2"
            )
            await #expect(throws: (any Error).self) {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action,
                                                          overdue_at)
                    VALUES ('GPA.3', 'g-2', 'vip', 'tok-3', 'refund', now())
                    """
                )
            }
        }
    }
}

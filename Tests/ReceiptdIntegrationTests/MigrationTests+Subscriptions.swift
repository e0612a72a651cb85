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
}

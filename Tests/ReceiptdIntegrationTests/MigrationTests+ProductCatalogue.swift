import ReceiptdCore
import Testing

extension MigrationTests {
    /// A database as the receiptd of migration 19 left it (a granted delivery, an owed Google acknowledgement)
    /// upgrades to migration 20: the rows are kept, the ledger's new columns are null on them (nothing was known),
    /// the catalogue starts empty, and the game can declare products at once.
    @Test func aDatabaseAtMigrationNineteenUpgradesKeepingItsLedgerWithAnEmptyCatalogue() async throws {
        let database = try await Self.database(migratedTo: 19)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, delivered_quantity, outcome)
                VALUES ('o-apple', 'u1', 'gems', 2, 2, 'full'), ('o-google', 'u2', 'sword', 1, 1, 'full')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, granted_at, store)
                VALUES ('t-1', 'o-apple', 'u1', 'gems', 2, 'Production', now(), 'apple'),
                       ('GPA.9', 'o-google', 'u2', 'sword', 1, 'Production', NULL, 'google')
                """
            )
            // A Google purchase of 5 units, 2 refunded by quantity, 1 of those handled by the game.
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, granted_at, store,
                                            revoked_quantity, revocation_handled_quantity)
                VALUES ('GPA.10', 'o-google', 'u3', 'sword', 5, 'Production', now(), 'google', 2, 1)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action)
                VALUES ('GPA.9', 'o-google', 'sword', 'token-9', 'acknowledge')
                """
            )

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(transaction_id || ':' || quantity || ':' || (granted_at IS NOT NULL), ','
                                      ORDER BY transaction_id)
                    FROM iap.deliveries
                    WHERE product_kind IS NULL AND ownership IS NULL AND price IS NULL AND currency IS NULL
                      AND offer_type IS NULL AND offer_id IS NULL AND purchase_option_id IS NULL
                    """
                ) == "GPA.10:5:true,GPA.9:1:false,t-1:2:true"
            )
            // The partial refund's share, and the share handled, follow from its units; what is owed is the rest.
            #expect(
                try await f.value(
                    """
                    SELECT revocation_percentage || '/' || revocation_handled_percentage FROM iap.deliveries
                    WHERE transaction_id = 'GPA.10'
                    """
                ) == "40000/20000"
            )
            #expect(
                try await f.value(
                    "SELECT revoked_quantity || '/' || revocation_percentage FROM iap.owed_revocations('u3')"
                ) == "1/20000"
            )
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "0")
            #expect(try await f.value("SELECT action FROM iap.google_finalizations") == "acknowledge")
            #expect(try await f.value("SELECT count(*) FROM iap.products") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.app_account_token_calls") == "0")
            try await f.connection.execute("SELECT iap.define_product('google', 'sword', 'non_consumable')")
            #expect(
                try await f.value("SELECT kind || '/' || source FROM iap.products WHERE product_id = 'sword'")
                    == "non_consumable/game"
            )
            let refused = await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    "INSERT INTO iap.products (store, product_id, kind, source) VALUES ('google', 'pass', 'non_renewing', 'game')"
                )
            }
            #expect(refused?.message.contains("products_google_kind_check") == true)
        }
    }
}

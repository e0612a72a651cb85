import ReceiptdCore
import Testing

extension MigrationTests {
    @Test func aDatabaseAtMigrationTenUpgradesToGoogleNotificationsWithItsData() async throws {
        // A database as the receiptd of migration 10 left it: revocations handled and not, an unclaimed payment
        // Apple reported, and a store notification.
        let database = try await Self.database(migratedTo: 10)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at)
                VALUES ('o-owed', 'u1', 'gems', 3, now()), ('o-handled', 'u1', 'gems', 2, now()),
                       ('o-kept', 'u1', 'gems', 1, now()), ('o-google', 'u2', 'gems', 1, now())
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment,
                                            granted_at, store, revoked_at, revocation_reason, revocation_handled_at)
                VALUES ('t-owed', 'o-owed', 'u1', 'gems', 3, 'Production', now(), 'apple', now() - interval '2 hours',
                        'refund_other', NULL),
                       ('t-handled', 'o-handled', 'u1', 'gems', 2, 'Production', now(), 'apple',
                        now() - interval '3 hours', 'refund_app_issue', now() - interval '1 hour'),
                       ('t-kept', 'o-kept', 'u1', 'gems', 1, 'Production', now(), 'apple', NULL, NULL, NULL),
                       ('GPA.1', 'o-google', 'u2', 'gems', 1, NULL, NULL, 'google', now() - interval '1 day', 'voided',
                        NULL)
                """
            )
            let notification = try #require(
                try await f.value(
                    """
                    INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id,
                                                         environment, source, payload)
                    VALUES ('apple', 'n1', 'ONE_TIME_CHARGE', 't9', 'Production', 'push', '{"notification": {}}')
                    RETURNING id
                    """
                )
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, app_account_token,
                                                    notification_id)
                VALUES ('t9', 'gems', 1, 'Production', gen_random_uuid(), $1::bigint)
                """,
                [notification]
            )
            let counts = """
                SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.deliveries) || '/' ||
                       (SELECT count(*) FROM iap.unclaimed_payments) || '/' || (SELECT count(*) FROM iap.store_notifications)
                """
            let before = try await f.value(counts)
            #expect(before == "4/4/1/1")

            try await Migrator.migrate(f.connection)
            #expect(try await f.value(counts) == before)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())

            // Revoked rows were revoked whole; handled ones were handled whole.
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(transaction_id || ':' || revoked_quantity || ':' || revocation_handled_quantity, ','
                                      ORDER BY transaction_id)
                    FROM iap.deliveries
                    """
                ) == "GPA.1:1:0,t-handled:2:2,t-kept:0:0,t-owed:3:0"
            )
            // Exactly the unhandled revocations are owed, each for all its units.
            let owed = try await f.connection.execute(
                "SELECT transaction_id, quantity, revoked_quantity FROM iap.owed_revocations('u1')"
            ).namedRows
            #expect(owed.map { $0["transaction_id"] } == ["t-owed"])
            #expect(owed.first?["quantity"] == "3" && owed.first?["revoked_quantity"] == "3")
            #expect(
                try await f.value("SELECT transaction_id || ':' || revoked_quantity FROM iap.owed_revocations('u2')")
                    == "GPA.1:1"
            )
            // Handling it after the upgrade marks both the time and the units.
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['t-owed', 't-handled'])") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "0")
            #expect(
                try await f.value(
                    """
                    SELECT revocation_handled_quantity || ':' || (revocation_handled_at IS NOT NULL)
                    FROM iap.deliveries WHERE transaction_id = 't-owed'
                    """
                ) == "3:true"
            )

            // The old payment was Apple's; it has no token and no acknowledge-by date. The notification awaits
            // no lookup.
            #expect(
                try await f.value(
                    """
                    SELECT store || ':' || coalesce(purchase_token, '-') || ':' || coalesce(acknowledge_by::text, '-')
                    FROM iap.unclaimed_payments WHERE transaction_id = 't9'
                    """
                ) == "apple:-:-"
            )
            #expect(try await f.value("SELECT awaiting_lookup::text FROM iap.store_notifications") == "false")

            // A Google payment needs its token (to acknowledge it with); no other store is taken.
            let untokened = await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, store)
                    VALUES ('GPA.2', 'gems', 1, 'google')
                    """
                )
            }
            #expect(untokened?.sqlState == "23514")
            #expect(
                untokened?.message.contains("unclaimed_payments_google_token") == true,
                "\(String(describing: untokened))"
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, store, purchase_token,
                                                    acknowledge_by)
                VALUES ('GPA.2', 'gems', 1, 'google', 'token-2', now() + interval '3 days')
                """
            )
            let otherStore = await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, store, purchase_token)
                    VALUES ('x1', 'gems', 1, 'amazon', 'token-x')
                    """
                )
            }
            #expect(otherStore?.sqlState == "23514")

            // Each partial refund Google lists is recorded once, for at least one unit.
            try await f.connection.execute(
                """
                INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity, purchase_token,
                                                        notification_id)
                VALUES ('GPA.1', '2026-11-01T10:00:00Z', 2, 'token-1', $1::bigint)
                """,
                [notification]
            )
            let twice = await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity)
                    VALUES ('GPA.1', '2026-11-01T10:00:00Z', 1)
                    """
                )
            }
            #expect(twice?.isUniqueViolation == true)
            let none = await #expect(throws: PostgresError.self) {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity)
                    VALUES ('GPA.1', '2026-11-02T10:00:00Z', 0)
                    """
                )
            }
            #expect(none?.sqlState == "23514")
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.google_partial_refunds WHERE recorded_at IS NOT NULL AND notification_id IS NOT NULL"
                ) == "1"
            )

            // The same again changes nothing.
            try await Migrator.migrate(f.connection)
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "2")
        }
    }
}

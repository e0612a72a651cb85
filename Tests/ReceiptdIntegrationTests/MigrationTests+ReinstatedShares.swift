import Foundation
import ReceiptdCore
import Testing

extension MigrationTests {
    @Test func aDatabaseAtMigrationTwentyFiveUpgradesWithRevokedUnitsAndReversedSharesSetRight() async throws {
        // A database as the receiptd of migration 25 left it (issue 47): a row refunded whole after a handled 40%
        // share that kept the share's 2 units, a share Apple reversed that the reversal left behind (the game had
        // taken 2 of 7 units back), one it left behind unhandled, a share still standing, and Google's partial refund.
        let database = try await Self.database(migratedTo: 25)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at, status, outcome,
                                        delivered_quantity, outcome_at)
                SELECT o, 'u1', 'gems', 1, now(), 'finished', 'full', 1, now()
                FROM unnest(ARRAY['o-full', 'o-reversed', 'o-unhandled', 'o-standing', 'o-google']) AS o
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store,
                                            granted_at, revoked_at, revocation_reason, revocation_percentage,
                                            revoked_quantity, revocation_handled_quantity, revocation_handled_percentage)
                VALUES ('t-full', 'o-full', 'u1', 'gems', 5, 'Production', 'apple', now(), now(), 'refund_other', NULL,
                        2, 2, 40000),
                       ('t-reversed', 'o-reversed', 'u1', 'gems', 7, 'Production', 'apple', now(), NULL,
                        'refund_prorated', 40000, 2, 2, 40000),
                       ('t-unhandled', 'o-unhandled', 'u1', 'gems', 7, 'Production', 'apple', now(), NULL,
                        'refund_prorated', 40000, 2, 0, 0),
                       ('t-standing', 'o-standing', 'u1', 'gems', 7, 'Production', 'apple', now(), NULL,
                        'refund_prorated', 40000, 2, 0, 0),
                       ('GPA.1', 'o-google', 'u1', 'gems', 3, NULL, 'google', now(), NULL, NULL, 33333, 1, 0, 0)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.revoked_transactions (store, transaction_id, revoked_at, revocation_reason,
                                                      revocation_percentage)
                VALUES ('apple', 't-full', now(), 'refund_other', NULL),
                       ('apple', 't-standing', now(), 'refund_prorated', 40000)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id, signed_at,
                                                     source, processed_at, result, payload)
                SELECT 'apple', 'n-' || t, 'REFUND_REVERSED', t, now(), 'push', now(), 'reinstated', '{}'
                FROM unnest(ARRAY['t-reversed', 't-unhandled']) AS t
                """
            )

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())
            let ledger = """
                SELECT string_agg(transaction_id || ':' || revoked_quantity || ':' || coalesce(revocation_percentage::text, '-')
                                  || ':' || coalesce(revocation_reason, '-') || ':' || reinstated_quantity, ','
                                  ORDER BY transaction_id)
                FROM iap.deliveries
                """
            let expected =
                "GPA.1:1:33333:-:0,t-full:5:-:refund_other:0,t-reversed:0:-:-:2,t-standing:2:40000:refund_prorated:0,"
                + "t-unhandled:0:-:-:0"
            #expect(try await f.value(ledger) == expected)
            // What is owed either way: the rest of the row revoked whole, the standing share and Google's unit; and
            // the 2 units the game took back of the reversed share.
            #expect(
                try await f.value(
                    """
                    SELECT string_agg(transaction_id || ':' || revoked_quantity, ',' ORDER BY transaction_id)
                    FROM iap.owed_revocations('u1')
                    """
                ) == "GPA.1:1,t-full:3,t-standing:2"
            )
            #expect(
                try await f.value(
                    "SELECT transaction_id || ':' || reinstated_quantity FROM iap.owed_deliveries('u1')"
                ) == "t-reversed:2"
            )
            #expect(try await f.value("SELECT iap.refunds_in_90_days('u1')") == "3")

            // The same again changes nothing.
            try await Migrator.migrate(f.connection)
            #expect(try await f.value(ledger) == expected)
        }
    }
}

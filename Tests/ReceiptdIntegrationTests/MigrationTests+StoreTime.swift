import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

extension MigrationTests {
    @Test func aDatabaseAtMigrationFifteenUpgradesWithEachRowDatedByTheNewsItHad() async throws {
        // A database as the receiptd of migration 15 left it: an Apple row refunded and reinstated, one no news
        // touched, a Google row the voided poll revoked, and one partly refunded by the poll and by a push.
        let database = try await Self.database(migratedTo: 15)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at, status, outcome,
                                        delivered_quantity, outcome_at)
                SELECT o, 'u1', 'gems', 3, now(), 'verified', 'full', 3, now()
                FROM unnest(ARRAY['o-apple', 'o-quiet', 'o-voided', 'o-partial']) AS o
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, store,
                                            granted_at, revoked_at, revocation_reason, revoked_quantity)
                VALUES ('t-apple', 'o-apple', 'u1', 'gems', 3, 'Production', 'apple', now(), NULL, NULL, 0),
                       ('t-quiet', 'o-quiet', 'u1', 'gems', 3, 'Production', 'apple', now(), NULL, NULL, 0),
                       ('GPA.1', 'o-voided', 'u1', 'gems', 3, NULL, 'google', now(), '2026-11-01 07:00+00', 'voided', 3),
                       ('GPA.2', 'o-partial', 'u1', 'gems', 3, NULL, 'google', now(), NULL, NULL, 2)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity)
                VALUES ('GPA.2', '2026-11-01 06:00+00', 1), ('GPA.2', '2026-11-01 09:00+00', 1)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.store_notifications (store, notification_id, notification_type, transaction_id, signed_at,
                                                     source, processed_at, result, payload)
                VALUES ('apple', 'n1', 'REFUND', 't-apple', '2026-11-01 08:00+00', 'push', now(), 'revoked', '{}'),
                       ('apple', 'n2', 'REFUND_REVERSED', 't-apple', '2026-11-01 10:00+00', 'history', now(),
                        'reinstated', '{}'),
                       ('apple', 'n3', 'REFUND_DECLINED', 't-apple', '2026-11-01 11:00+00', 'push', now(), 'recorded', '{}'),
                       ('google', 'n4', 'VOIDED_PURCHASE', 'GPA.2', '2026-11-01 08:30+00', 'push', now(), 'partly_revoked',
                        '{"notification": {"eventTimeMillis": "1793525400000"}}')
                """
            )
            let dated = """
                SELECT string_agg(transaction_id || '=' || coalesce(to_char(store_time AT TIME ZONE 'UTC', 'HH24:MI'), '-'),
                                  ',' ORDER BY transaction_id)
                FROM iap.deliveries
                """
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "4")

            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())
            // Apple's: the reversal's signedDate (a declined refund applies nothing). Google's: the revocation's, or
            // the latest of the partial refunds' voidings and the push's event time (1793525400000 is 09:30).
            #expect(try await f.value(dated) == "GPA.1=07:00,GPA.2=09:30,t-apple=10:00,t-quiet=-")
            #expect(
                try await f.value(
                    "SELECT revoked_at IS NULL AND revoked_quantity = 0 FROM iap.deliveries WHERE transaction_id = 't-apple'"
                )
                    == "t"
            )

            // A refund Apple signed between the refund and the reversal arrives after the upgrade: it is older than
            // the reversal the row had before, and changes nothing.
            let late = try await f.recordNotification(
                "REFUND",
                transaction: SignedTransactionPayload(
                    transactionId: "t-apple",
                    productId: "gems",
                    revocationDate: 1_793_523_600_000,
                    revocationReason: 0
                ),
                signedDate: 1_793_523_600_000
            )
            let pool = DatabasePool(connectionString: f.database.connectionString, maximumConnections: 1)
            let queue = PostgresJobQueue(
                pool: pool,
                owner: "test:1:processing",
                planner: DeliveryPlanner(purchaseSkew: .zero, expectedBundleID: SyntheticReceipt.defaultBundleID)
            )
            let processed = try await queue.processNotifications(
                limit: 10,
                planner: NotificationPlanner(),
                backoff: Backoff(base: .milliseconds(50), maximum: .milliseconds(200))
            )
            await pool.close()
            #expect(processed.map(\.result) == [.superseded])
            try await f.expectProcessed(late, "superseded")
            #expect(try await f.value(dated) == "GPA.1=07:00,GPA.2=09:30,t-apple=10:00,t-quiet=-")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "2")

            // The same again changes nothing.
            try await Migrator.migrate(f.connection)
            #expect(try await f.value(dated) == "GPA.1=07:00,GPA.2=09:30,t-apple=10:00,t-quiet=-")
        }
    }
}

import ReceiptdCore
import Testing

extension MigrationTests {
    @Test func aDatabaseAtMigrationElevenUpgradesToTrustLevelsWithItsData() async throws {
        // A database as the receiptd of migration 11 left it: a granted and an owed delivery, an App Store order
        // whose job has been failing for an hour, and a Google order waiting.
        let database = try await Self.database(migratedTo: 11)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                """
                INSERT INTO iap.orders (order_id, user_id, product_id, quantity, checkout_at, status, outcome,
                                        delivered_quantity, outcome_at)
                VALUES ('o-granted', 'u1', 'gems', 1, now(), 'finished', 'full', 1, now() - interval '2 days'),
                       ('o-owed', 'u1', 'gems', 2, now(), 'verified', 'full', 2, now() - interval '1 day'),
                       ('o-failing', 'u2', 'gems', 1, now(), 'pending', NULL, 0, NULL),
                       ('o-google', 'g1', 'gems', 1, now(), 'pending', NULL, 0, NULL)
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.jobs (order_id, kind, receipt_data, receipt_sha256, state, attempts, last_error,
                                      created_at, finished_at, submitted_by)
                VALUES ('o-granted', 'transaction', '1001', 'sha-1', 'succeeded', 1, NULL, now() - interval '2 days',
                        now() - interval '2 days', 'u1'),
                       ('o-owed', 'receipt', 'QUFB', 'sha-2', 'succeeded', 1, NULL, now() - interval '1 day',
                        now() - interval '1 day', 'u1'),
                       ('o-failing', 'receipt', 'QUJD', 'sha-3', 'pending', 4, 'http: HTTP 503',
                        now() - interval '1 hour', NULL, 'u2'),
                       ('o-google', 'google_purchase', 'token-1', 'sha-4', 'pending', 0, NULL, now(), NULL, 'g1')
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment,
                                            granted_at, store)
                VALUES ('t-granted', 'o-granted', 'u1', 'gems', 1, 'Production', now(), 'apple'),
                       ('t-owed', 'o-owed', 'u1', 'gems', 2, 'Production', NULL, 'apple')
                """
            )
            let counts = """
                SELECT (SELECT count(*) FROM iap.orders) || '/' || (SELECT count(*) FROM iap.jobs) || '/' ||
                       (SELECT count(*) FROM iap.deliveries)
                """
            let before = try await f.value(counts)
            #expect(before == "4/4/2")

            try await Migrator.migrate(f.connection)
            #expect(try await f.value(counts) == before)
            #expect(
                try await f.value("SELECT max(version) FROM iap.schema_migrations") == String(Migration.latestVersion)
            )
            #expect(try await RoutineTests.functions(f.connection).sorted() == RoutineTests.grants.keys.sorted())
            // The new tables start empty, the policy at the documented defaults.
            #expect(
                try await f.value(
                    "SELECT (SELECT count(*) FROM iap.user_trust) || '/' || (SELECT count(*) FROM iap.provisional_grants)"
                ) == "0/0"
            )
            #expect(
                try await f.value(
                    "SELECT initial_apple || ':' || initial_google || ':' || restore_after FROM iap.trust_policy"
                ) == "true:false:3"
            )

            try await TrustRuleTests.withRoles(f) { roles in
                // The old ledger reads through the recreated owed_deliveries, its new column false.
                let owed = try await roles.game.execute(
                    "SELECT transaction_id, order_id, quantity, provisional FROM iap.owed_deliveries($1)",
                    ["u1"]
                ).namedRows
                #expect(owed.map { $0["transaction_id"] } == ["t-owed"])
                #expect(owed.first?["quantity"] == "2" && owed.first?["provisional"] == "f")
                #expect(try await roles.game.execute("SELECT iap.mark_granted('o-owed') AS n").first?["n"] == "1")

                // The old failing job is granted provisionally, and the game sees it.
                #expect(try await TrustRuleTests.grant(roles.worker) == ["o-failing:store_failing"])
                #expect(
                    try await roles.game.execute(
                        "SELECT transaction_id || ':' || provisional AS row FROM iap.owed_deliveries('u2')"
                    ).first?["row"] == "provisional:o-failing:true"
                )
                // The old Google order counts toward its player's streak; levels read for old players.
                try await TrustRuleTests.settle(roles.worker, ["o-google"], store: "google")
                #expect(try await TrustRuleTests.trust(roles.operations, "g1", "google") == "false:1:initial")
                #expect(try await TrustRuleTests.trust(roles.operations, "u1", "apple") == "true:0:-")
            }

            // The same again changes nothing.
            try await Migrator.migrate(f.connection)
            #expect(try await f.value(counts) == "4/4/3")
            #expect(try await f.value("SELECT count(*) FROM iap.provisional_grants WHERE state = 'unconfirmed'") == "1")
        }
    }
}

import ReceiptdCore
import Testing

extension MigrationTests {
    /// Migration 30 retires the one `apple_server_api` row for a row per endpoint. A block on it was sent by an
    /// endpoint no one recorded: every endpoint keeps it until it ends, so no request goes before a `Retry-After`
    /// Apple sent; the orders and jobs are untouched.
    @Test func aDatabaseAtMigrationTwentyFiveUpgradesToAPacingRowPerEndpointKeepingItsBlock() async throws {
        let database = try await Self.database(migratedTo: 25)
        try await Fixture.with(database: database) { f in
            try await f.connection.execute(
                "INSERT INTO iap.orders (order_id, user_id, product_id) VALUES ('waiting', 'u1', 'gems')"
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256, kind, run_at)
                VALUES ('waiting', '9901', 'x', 'transaction', now() + interval '40 minutes')
                """
            )
            try await f.connection.execute(
                """
                UPDATE iap.api_pacing SET blocked_until = now() + interval '40 minutes', next_slot = now() + interval '1 second'
                WHERE api = 'apple_server_api'
                """
            )
            let until = try #require(
                try await f.value("SELECT blocked_until::text FROM iap.api_pacing WHERE api = 'apple_server_api'")
            )

            try await Migrator.migrate(f.connection)
            let rows = try await f.connection.execute(
                "SELECT api, (blocked_until = $1::timestamptz)::text AS kept FROM iap.api_pacing ORDER BY api",
                [until]
            ).namedRows
            let names = AppStoreServerEndpoint.allCases.map(\.rawValue).sorted()
            #expect(rows.map { $0["api"] } == names)
            #expect(rows.allSatisfy { $0["kept"] == "true" }, "\(rows)")
            let stuck = try await f.connection.execute(
                "SELECT last_error FROM iap.stuck_jobs WHERE reason = 'api_blocked' ORDER BY last_error"
            ).namedRows.compactMap { $0["last_error"] }
            #expect(stuck.count == names.count)
            #expect(zip(stuck, names).allSatisfy { $0.hasPrefix($1 + " asked not to be called before") }, "\(stuck)")
            let status = try await OperatorQueries(connection: f.connection).status()
            #expect(status.blockedAPIs.map(\.api) == names)
            #expect(
                try await f.value("SELECT order_id || '/' || state || '/' || receipt_data FROM iap.jobs")
                    == "waiting/pending/9901"
            )
        }
    }

    /// An old database whose Server API was not blocked upgrades to endpoints all free at once.
    @Test func aDatabaseAtMigrationTwentyFiveWithoutABlockUpgradesToFreeEndpoints() async throws {
        let database = try await Self.database(migratedTo: 25)
        try await Fixture.with(database: database) { f in
            try await Migrator.migrate(f.connection)
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.api_pacing WHERE blocked_until = '-infinity' AND next_slot = '-infinity'"
                ) == String(AppStoreServerEndpoint.allCases.count)
            )
            #expect(try await f.value("SELECT count(*) FROM iap.api_pacing WHERE api = 'apple_server_api'") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
        }
    }
}

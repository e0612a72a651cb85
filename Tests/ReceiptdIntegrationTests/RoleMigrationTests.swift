import Foundation
import ReceiptdCore
import ReceiptdTestKit
import Testing

@Suite struct RoleMigrationTests {
    @Test func concurrentMigrationsOfNewDatabasesCreateTheRolesOnce() async throws {
        // A cluster of its own, so the roles do not exist yet when the migrations race to create them.
        let cluster = try TemporaryPostgres.start()
        defer { cluster.stop() }
        let names = (0..<4).map { "race_\($0)" }
        let admin = try await PostgresConnection.connect(cluster.connectionString())
        for name in names { try await admin.execute("CREATE DATABASE \(name)") }
        await admin.close()

        for _ in 0..<2 {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for name in names {
                    group.addTask {
                        let connection = try await PostgresConnection.connect(cluster.connectionString(database: name))
                        try await Migrator.migrate(connection)
                        await connection.close()
                    }
                }
                try await group.waitForAll()
            }
        }
        for name in names {
            let connection = try await PostgresConnection.connect(cluster.connectionString(database: name))
            let row = try #require(
                try await connection.execute(
                    """
                    SELECT (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'receiptd\\_%') AS roles,
                           has_function_privilege('receiptd_app', 'iap.enqueue_receipt(text, text, text, text, int)', 'EXECUTE') AS app,
                           has_table_privilege('receiptd_operator', 'iap.recent_failures', 'SELECT') AS operator,
                           has_table_privilege('receiptd_worker', 'iap.jobs', 'DELETE') AS worker_deletes
                    """
                ).first
            )
            await connection.close()
            #expect(
                row["roles"] == "3" && row["app"] == "t" && row["operator"] == "t" && row["worker_deletes"] == "f",
                "\(name)"
            )
        }
    }
}

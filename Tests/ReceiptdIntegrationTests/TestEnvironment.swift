import Foundation
import ReceiptdCore
import ReceiptdTestKit

/// One throwaway PostgreSQL for the whole test run, and a migrated template each test database is copied from.
actor TestEnvironment {
    static let shared = TestEnvironment()

    // A task, not a value: the actor is re-entered while the cluster starts, and every caller must share one start.
    private var cluster: Task<TemporaryPostgres, any Error>?
    private var counter = 0

    /// A fresh database with the schema applied, private to the calling test.
    func database() async throws -> TestDatabase {
        try await createDatabase(template: "receiptd_template")
    }

    /// A fresh database without the schema.
    func emptyDatabase() async throws -> TestDatabase {
        try await createDatabase(template: "template0")
    }

    private func createDatabase(template: String) async throws -> TestDatabase {
        let cluster = try await startedCluster()
        counter += 1
        let name = "t_\(getpid())_\(counter)"
        let admin = try await PostgresConnection.connect(cluster.connectionString())
        do {
            // Identifiers cannot be parameters; both names are ours, made of [a-z0-9_].
            try await admin.execute("CREATE DATABASE \(name) TEMPLATE \(template)")
        } catch {
            await admin.close()
            throw error
        }
        await admin.close()
        return TestDatabase(cluster: cluster, name: name)
    }

    private func startedCluster() async throws -> TemporaryPostgres {
        if let cluster { return try await cluster.value }
        let starting = Task { try await Self.startCluster() }
        cluster = starting
        return try await starting.value
    }

    private static func startCluster() async throws -> TemporaryPostgres {
        let started = try TemporaryPostgres.start(configuration: .init(maxConnections: 400))
        let admin = try await PostgresConnection.connect(started.connectionString())
        try await admin.execute("CREATE DATABASE receiptd_template")
        await admin.close()
        let template = try await PostgresConnection.connect(started.connectionString(database: "receiptd_template"))
        try await Migrator.migrate(template)
        await template.close()
        return started
    }
}

extension TestEnvironment {
    /// A migrated cluster of the caller's own, for tests that stop or restart PostgreSQL (the shared one serves
    /// other tests); its `postgres` database holds the schema. The caller stops it.
    static func privateCluster() async throws -> TemporaryPostgres {
        let cluster = try TemporaryPostgres.start()
        do {
            let setup = try await PostgresConnection.connect(cluster.connectionString())
            try await Migrator.migrate(setup)
            await setup.close()
        } catch {
            cluster.stop()
            throw error
        }
        return cluster
    }
}

/// A database of the test cluster.
struct TestDatabase: Sendable {
    let cluster: TemporaryPostgres
    let name: String

    var connectionString: String { cluster.connectionString(database: name) }

    func connect() async throws -> PostgresConnection {
        try await PostgresConnection.connect(connectionString)
    }
}

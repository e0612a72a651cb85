import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit
import Testing

/// Takes PostgreSQL away under a running daemon. Uses a cluster of its own: the shared one serves other tests.
@Suite struct DatabaseLossTests {
    @Test func theDaemonRidesOutALostDatabaseAndFinishesItsWork() async throws {
        let cluster = try await TestEnvironment.privateCluster()
        defer { cluster.stop() }

        try await Fixture.with(database: TestDatabase(cluster: cluster, name: "postgres")) { f in
            let inFlight = try await f.enqueue("in-flight", receipt: Receipts.paying("6001", delay: 1_500))
            let lines = CapturingLogHandler.Lines()
            let settings = f.settings { $0.daemon.lease = .seconds(40) }
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [inFlight]) == "running"
                }
                try cluster.stopServer(mode: .fast)
                // Apple answers while the database is gone; the daemon must keep that answer.
                try await Task.sleep(for: .seconds(4))
                try cluster.resume()

                let fresh = try await f.database.connect()
                try await fresh.execute(
                    "SELECT iap.enqueue_receipt($1, $2, $3, $4, $5)",
                    ["after-restart", "u2", "gems", Receipts.paying("6002"), 1]
                )
                try await f.waitUntil(timeout: .seconds(20)) {
                    try await fresh.execute("SELECT count(*) AS n FROM iap.orders WHERE outcome = 'full'").first?.int(
                        "n"
                    ) == 2
                }
                await fresh.close()
                // The listener retries with backoff; it comes back on its own.
                try await f.waitUntil(timeout: .seconds(20)) {
                    lines.all.contains { $0.contains("database reachable again; listening") }
                }
            }
            func count(_ text: String) -> Int { lines.all.filter { $0.contains(text) }.count }
            #expect(count("database unreachable for notifications") == 1)
            #expect(count("claim failed") == 1)
            #expect(count("recording failed; keeping the result") == 1)
            #expect(count("database reachable again; listening") == 1)
        }
        let check = try await PostgresConnection.connect(cluster.connectionString())
        let row = try await check.execute(
            "SELECT count(*) FILTER (WHERE state = 'succeeded') AS ok, count(*) AS n, max(attempts) AS attempts FROM iap.jobs"
        ).first
        #expect(row?["ok"] == "2" && row?["n"] == "2" && row?["attempts"] == "1")
        await check.close()
    }
}

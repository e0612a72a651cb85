import FakeAppStore
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTestKit
import Testing

/// The daemon's `TrustKeeper`: it publishes the trust settings whether grants are on or off, grants nothing while
/// they are off, and rides out a lost database.
@Suite struct TrustKeeperTests {
    /// `RECEIPTD_PROVISIONAL=off` (the default): the settings the triggers apply are published at start, and an
    /// order of a trusted player waits through an outage like any other.
    @Test func withGrantsOffTheKeeperPublishesThePolicyAndGrantsNothing() async throws {
        try await Fixture.with { f in
            f.standIn.setOutage(true)
            try await f.enqueue("off-1", user: "olga", receipt: Receipts.paying("7601"))
            let settings = f.settings {
                Fixture.provision(&$0)
                $0.trust.provisional = .off
                $0.trust.initialGoogle = .trusted
                $0.trust.restoreAfter = 5
            }
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value(
                        "SELECT initial_google AND initial_apple AND restore_after = 5 FROM iap.trust_policy"
                    )
                        == "t"
                }
                try await f.waitUntilFailing("off-1")
                try await Task.sleep(for: .seconds(1.5))
                #expect(try await f.provisionalGrant("off-1") == nil)
            }
            #expect(try await f.status("off-1") == "pending")
            #expect(try await f.owed("olga") == [])
            #expect(try await f.value("SELECT count(*) FROM iap.provisional_grants") == "0")
            #expect(try await f.trust("olga")["trusted"] == "t")
        }
    }

    /// PostgreSQL goes away under a daemon that grants: the keeper says so once, keeps the daemon running, says
    /// when the database is back, and grants again.
    @Test func theKeeperRidesOutALostDatabaseAndGrantsAgain() async throws {
        let cluster = try await TestEnvironment.privateCluster()
        defer { cluster.stop() }

        try await Fixture.with(database: TestDatabase(cluster: cluster, name: "postgres")) { f in
            f.standIn.setOutage(true)
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(
                settings: f.provisionalSettings(),
                logger: CapturingLogHandler.logger(into: lines)
            ) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.daemons") != "0"
                }
                try cluster.stopServer(mode: .fast)
                try await Task.sleep(for: .seconds(3))
                try cluster.resume()

                let fresh = try await f.database.connect()
                try await fresh.execute(
                    "SELECT iap.enqueue_receipt($1, $2, $3, $4, $5)",
                    ["after-loss", "lara", "gems", Receipts.paying("7701"), 1]
                )
                try await f.waitUntil(timeout: .seconds(30)) {
                    try await fresh.execute(
                        "SELECT count(*) AS n FROM iap.provisional_grants WHERE order_id = 'after-loss'"
                    ).first?.int("n") == 1
                }
                await fresh.close()
            }
            func count(_ text: String) -> Int { lines.all.filter { $0.contains(text) }.count }
            #expect(count("trust levels: could not write the settings or grant") == 1)
            #expect(count("trust levels: database reachable again") == 1)
            #expect(count("order granted provisionally") == 1)
        }
    }
}

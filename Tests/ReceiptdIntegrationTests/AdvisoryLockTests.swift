import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Any role may take an advisory lock, the game's included: `migrate` waits for the migration lock a bounded
/// time and names who holds it, and a voided poller kept from its lock for three intervals says so.
@Suite struct AdvisoryLockTests {
    /// A session of the game's role, named as a game server would name it, and its backend pid.
    private func gameSession(_ f: Fixture) async throws -> (PostgresConnection, String) {
        let game = try await PostgresConnection.connect(
            try await f.loginRole(in: "receiptd_app") + " application_name=game-server"
        )
        let pid = try #require(try await game.execute("SELECT pg_backend_pid() AS pid").first?["pid"])
        return (game, pid)
    }

    @Test func migrateGivesUpOnALockHeldElsewhereAndNamesTheHolder() async throws {
        try await Fixture.with { f in
            let (game, pid) = try await gameSession(f)
            try await game.execute("SELECT pg_advisory_lock($1)", [Migrator.lockKey])

            let error = await #expect(throws: MigrationError.self) {
                try await Migrator.migrate(f.connection, lockWait: .milliseconds(300))
            }
            guard case .lockHeld(_, let holders)? = error else {
                Issue.record("expected lockHeld, got \(String(describing: error))")
                return
            }
            #expect(holders.count == 1)
            #expect(
                holders.first?.contains("pid \(pid)") == true && holders.first?.contains("_app") == true
                    && holders.first?.contains("game-server") == true,
                "\(holders)"
            )

            let run = try ReceiptdBinary.run([
                "migrate", "--lock-wait", "1", "--database-url", f.database.connectionString,
            ])
            #expect(run.status == 1, "\(run.stderr)")
            #expect(
                run.stderr.contains("migration lock") && run.stderr.contains("pid \(pid)")
                    && run.stderr.contains("game-server"),
                "\(run.stderr)"
            )
            #expect(try ReceiptdBinary.run(["migrate", "--lock-wait", "-1"]).status == 2)

            try await game.execute("SELECT pg_advisory_unlock($1)", [Migrator.lockKey])
            let after = try ReceiptdBinary.run([
                "migrate", "--lock-wait", "1", "--database-url", f.database.connectionString,
            ])
            #expect(after.status == 0, "\(after.stderr)")
            await game.close()
        }
    }

    @Test func aPollerKeptFromItsLockForThreeIntervalsShowsInTheStatus() async throws {
        try await Fixture.withGooglePlayStandIn(settings: { $0.googlePlay.voidedInterval = .milliseconds(200) }) {
            f,
            google,
            settings in
            let (game, pid) = try await gameSession(f)
            try await game.execute("SELECT pg_advisory_lock($1)", [GoogleVoidedPoller.lockKey])
            let queries = OperatorQueries(connection: f.connection)
            let lines = CapturingLogHandler.Lines()
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil { try await queries.status().voidedPolls.first?.lockMissingSeconds != nil }
                try await f.waitUntil { lines.all.contains { $0.contains("advisory lock") } }
            }
            #expect(google.recordedVoidedQueries().isEmpty)
            let poll = try #require(try await queries.status().voidedPolls.first)
            #expect(poll.lockHolders.contains { $0.contains("pid \(pid)") && $0.contains("game-server") }, "\(poll)")
            #expect(lines.all.contains { $0.contains("advisory lock") && $0.contains("pid \(pid)") })
            let text = try ReceiptdBinary.run(["status", "--database-url", f.database.connectionString])
            #expect(
                text.stdout.contains("could take its advisory lock") && text.stdout.contains("pid \(pid)"),
                "\(text.stdout)"
            )

            // Let go: the next poll takes the lock and the status no longer mentions it.
            try await game.execute("SELECT pg_advisory_unlock($1)", [GoogleVoidedPoller.lockKey])
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await queries.status().voidedPolls.first?.lockMissingSeconds == nil }
            }
            #expect(!google.recordedVoidedQueries().isEmpty)
            await game.close()
        }
    }
}

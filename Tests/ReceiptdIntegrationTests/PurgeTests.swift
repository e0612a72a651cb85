import Foundation
import ReceiptdCore
import Testing

@Suite struct PurgeTests {
    /// o1: three receipts (a supersede chain) of which the last paid; o2: failed with attempts; o3: finished
    /// a minute ago; o4: still pending. All but o3 and o4 finished two days ago.
    private func seed(_ f: Fixture) async throws -> (chain: [Int64], failed: Int64, young: Int64, active: Int64) {
        let first = try await f.enqueue("o1", receipt: Receipts.paying("1"))
        let second = try await f.enqueue("o1", receipt: Receipts.paying("2"))
        let paid = try await f.enqueue("o1", receipt: Receipts.paying("3"))
        try await f.setJob(paid, state: "succeeded")
        try await f.connection.execute(
            """
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, job_id)
            VALUES ('1000000003', 'o1', 'u1', 'gems', 1, $1)
            """,
            [paid]
        )
        let failed = try await f.enqueue("o2", receipt: Receipts.paying("4"))
        try await f.addAttempt(job: failed, number: 1, result: "rejected", appleStatus: 21003)
        try await f.setJob(failed, state: "failed")
        try await f.connection.execute(
            "UPDATE iap.jobs SET finished_at = now() - interval '2 days' WHERE finished_at IS NOT NULL"
        )
        let young = try await f.enqueue("o3", receipt: Receipts.paying("5"))
        try await f.setJob(young, state: "succeeded", secondsAgo: 60)
        let active = try await f.enqueue("o4", receipt: Receipts.paying("6"))
        try await f.connection.execute(
            "UPDATE iap.jobs SET created_at = now() - interval '3 days' WHERE id = $1",
            [active]
        )
        return ([first, second, paid], failed, young, active)
    }

    @Test func purgeDeletesOldUnreferencedJobsWithTheirAttemptsAndKeepsTheLedger() async throws {
        try await Fixture.with { f in
            let seeded = try await seed(f)
            #expect(try await f.value("SELECT iap.purge_finished(interval '1 day', 100)") == "3")
            let left = try await f.connection.execute("SELECT id FROM iap.jobs ORDER BY id").rows.compactMap { $0[0] }
            #expect(left == [seeded.chain[2], seeded.young, seeded.active].map(String.init))
            #expect(try await f.value("SELECT count(*) FROM iap.attempts") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.orders") == "4")
            #expect(try await f.value("SELECT job_id FROM iap.deliveries") == String(seeded.chain[2]))
            #expect(try await f.value("SELECT iap.purge_finished(interval '1 day', 100)") == "0")
        }
    }

    @Test func smallBatchesNeverBreakASupersedeChain() async throws {
        try await Fixture.with { f in
            let seeded = try await seed(f)
            var rounds: [String?] = []
            for _ in 0..<4 { rounds.append(try await f.value("SELECT iap.purge_finished(interval '1 day', 1)")) }
            #expect(rounds == ["1", "1", "1", "0"])
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.jobs WHERE id = ANY ($1::bigint[])",
                    ["{\(seeded.chain[0]),\(seeded.chain[1]),\(seeded.failed)}"]
                ) == "0"
            )
        }
    }

    @Test func aJobNamedBySupersededByWaitsForTheJobThatNamesIt() async throws {
        try await Fixture.with { f in
            // A merged payment: the older job paid, the newer one was closed pointing back at it.
            let payer = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            let closed = try await f.enqueue("o2", receipt: Receipts.paying("1"))
            // The payer finished first, so by age alone it would go first.
            try await f.setJob(payer, state: "succeeded", secondsAgo: 3 * 86_400)
            try await f.setJob(closed, state: "superseded", secondsAgo: 2 * 86_400)
            try await f.connection.execute("UPDATE iap.jobs SET superseded_by = $1 WHERE id = $2", [payer, closed])

            #expect(try await f.value("SELECT iap.purge_finished(interval '1 day', 1)") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE id = $1", [closed]) == "0")
            #expect(try await f.value("SELECT iap.purge_finished(interval '1 day', 1)") == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "0")
        }
    }

    /// Issue #47, item 11: the ledger names every job that paid, so the purge can never delete them; on a database of
    /// 100,000 ledger rows it sets each aside once, and from then on a pass reads neither the ledger nor those jobs,
    /// so an idle daemon's purge costs nothing however large the ledger grows. Jobs nobody names still go.
    @Test func aPassReadsNoJobTheLedgerNamesOnceItIsKept() async throws {
        try await Fixture.with { f in
            try await f.seedLargeLedger()
            // A thousand failed jobs nobody names, with their attempts, finished among the named ones.
            try await f.connection.execute(
                """
                INSERT INTO iap.jobs (id, order_id, receipt_data, receipt_sha256, state, attempts, finished_at)
                SELECT 100000 + g, 'o' || (g * 100), 'QUJD', md5('f' || g), 'failed', 1,
                       now() - interval '40 days' + g * 100 * interval '1 ms'
                FROM generate_series(1, 1000) g
                """
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.attempts (job_id, order_id, attempt, started_at, duration_ms, result)
                SELECT id, order_id, 1, finished_at, 1, 'rejected' FROM iap.jobs WHERE state = 'failed'
                """
            )
            // The daemon's batch: each pass sets aside at most ten times it, so twenty passes reach every job.
            for _ in 0..<25 { _ = try await f.value("SELECT iap.purge_finished(interval '30 days', 500)") }
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE state = 'failed'") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.attempts") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs WHERE kept") == "100000")
            #expect(
                try await f.value("SELECT count(*) FROM iap.deliveries d JOIN iap.jobs j ON j.id = d.job_id")
                    == "100000"
            )
            // The rows the marking replaced are gone, as autovacuum leaves it.
            try await f.script("VACUUM iap.jobs")

            // A connection of its own: a session's counts of what it read wait unflushed across its transactions.
            let daemon = try await f.database.connect()
            let read = try await daemon.withSession { session in
                try session.transaction { session in
                    try session.execute("SELECT iap.purge_finished(interval '30 days', 500)")
                    // This transaction's counts: what the pass read of each table.
                    return try session.execute(
                        """
                        SELECT (SELECT coalesce(sum(seq_tup_read + coalesce(idx_tup_fetch, 0)), 0)
                                FROM pg_stat_xact_user_tables WHERE relid = 'iap.jobs'::regclass) AS jobs_read,
                               (SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)
                                FROM pg_stat_xact_user_tables WHERE relid = 'iap.deliveries'::regclass) AS ledger_scans
                        """
                    ).rows.first ?? []
                }
            }
            await daemon.close()
            // Jobs read, and scans of the ledger.
            #expect(read == ["0", "0"], "\(read)")
        }
    }

    @Test func purgeRefusesNonsenseArguments() async throws {
        try await Fixture.with { f in
            let zero = await #expect(throws: PostgresError.self) {
                try await f.value("SELECT iap.purge_finished(interval '1 day', 0)")
            }
            #expect(zero?.sqlState == "22023")
            let negative = await #expect(throws: PostgresError.self) {
                try await f.value("SELECT iap.purge_finished(interval '-1 day', 10)")
            }
            #expect(negative?.sqlState == "22023")
        }
    }
}

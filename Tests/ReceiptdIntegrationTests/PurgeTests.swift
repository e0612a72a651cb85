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

import Foundation
import ReceiptdCore
import Testing

/// A game server's transaction left open on an order: the README invites `enqueue_*` inside the game's own
/// transaction. Only what needs the held rows may wait for it; heartbeats, lease passes and the settles of
/// other players' orders go on, and the held order settles once the transaction ends.
@Suite struct GameTransactionTests {
    /// Orders of players other than the game transaction's, enqueued while it is open.
    private func enqueueUnrelated(_ f: Fixture, count: Int, from first: Int) async throws {
        for i in 0..<count {
            try await f.enqueue("other-\(i)", user: "player-\(i)", receipt: Receipts.paying(String(first + i)))
        }
    }

    /// Runs `body`; when it fails, ends the game's transaction (by closing its connection) first, so that the
    /// daemons' shutdown does not wait for it.
    private func releasing(_ game: PostgresConnection, _ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch {
            await game.close()
            throw error
        }
    }

    private func fullOrders(_ f: Fixture, prefix: String) async throws -> Int {
        Int(
            try await f.value(
                "SELECT count(*) FROM iap.orders WHERE order_id LIKE $1 AND outcome = 'full'",
                [prefix + "%"]
            ) ?? ""
        ) ?? -1
    }

    @Test func anEnqueueLeftOpenOnARunningOrderStallsNoHeartbeatNoReclaimAndNoOtherSettle() async throws {
        try await Fixture.with { f in
            let lease = 2.0
            let settings = f.settings { $0.daemon.lease = .seconds(lease) }
            // Apple takes its time over this one, so that it is running when the game enqueues again.
            let first = try await f.enqueue("held", user: "gamer", receipt: Receipts.paying("9000", delay: 2_500))
            let game = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app"))
            try await f.withDaemons(settings: settings) { daemons in
                try await releasing(game) {
                    try await f.waitUntil {
                        try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [first]) == "running"
                    }
                    // The game's transaction: a new receipt for the running order (locks the order and the running
                    // job, supersedes it), then nothing: left open.
                    try await game.execute("BEGIN")
                    try await game.execute(
                        "SELECT iap.enqueue_receipt('held', 'gamer', 'gems', $1)",
                        [Receipts.paying("9001")]
                    )
                    let lockedAt = ContinuousClock.now
                    // A daemon that was killed meanwhile: its job running, its heartbeat old, no row in iap.daemons.
                    try await f.connection.execute(
                        """
                        WITH o AS (INSERT INTO iap.orders (order_id, user_id, product_id) VALUES ('ghost', 'ghost-player', 'gems'))
                        INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256, state, attempts, started_at, heartbeat_at, locked_by)
                        VALUES ('ghost', $1, 'x', 'running', 1, now() - interval '1 minute', now() - interval '1 minute', 'dead-host:1:x')
                        """,
                        [Receipts.paying("9002")]
                    )
                    try await enqueueUnrelated(f, count: 20, from: 9100)

                    // Held open through more than a lease: the others settle and the dead daemon's job is reclaimed
                    // (and then settles) meanwhile.
                    try await f.waitUntil(timeout: .seconds(40)) {
                        let others = try await fullOrders(f, prefix: "other-")
                        let ghost = try await f.order("ghost")["outcome"]
                        return others == 20 && ghost == "full" && ContinuousClock.now - lockedAt > .seconds(lease * 1.5)
                    }
                    // Reclaimed (the lost attempt counted), then claimed again.
                    #expect(try await f.order("ghost")["attempts"] == "2")
                    // The living daemon kept heartbeating, so its held job was not taken from it.
                    let age = try await f.value(
                        "SELECT extract(epoch FROM now() - heartbeat_at) FROM iap.daemons WHERE daemon = $1",
                        [daemons[0].identity]
                    )
                    #expect((Double(age ?? "") ?? .infinity) < lease)
                    #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [first]) == "running")
                    #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'held'") == nil)

                    // The game commits: the superseding job pays the order.
                    try await game.execute("COMMIT")
                    try await f.waitUntilSettled(timeout: .seconds(40))
                }
            }
            await game.close()
            let held = try await f.order("held")
            #expect(held["outcome"] == "full" && held["state"] == "succeeded")
            #expect(try await f.value("SELECT state FROM iap.jobs WHERE id = $1", [first]) == "superseded")
            #expect(try await f.value("SELECT transaction_id FROM iap.deliveries WHERE order_id = 'held'") == "9001")
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome IS DISTINCT FROM 'full'") == "0")
        }
    }

    @Test func aSettleWaitingForAGameLockFinishesOnceItGoesAndHoldsUpNoOtherOrder() async throws {
        try await Fixture.with { f in
            // One settle lane (half of two connections), and only two attempts: a lock must cost none.
            let settings = f.settings {
                $0.daemon.lease = .seconds(2)
                $0.daemon.databaseConnections = 2
                $0.daemon.maxAttempts = 2
            }
            try await f.enqueue("held", user: "gamer", receipt: Receipts.paying("9200"))
            // The game holds the order's row in a transaction it leaves open.
            let game = try await f.database.connect()
            try await game.execute("BEGIN")
            try await game.execute("SELECT 1 FROM iap.orders WHERE order_id = 'held' FOR UPDATE")
            try await f.withDaemons(settings: settings) { _ in
                try await releasing(game) {
                    try await f.waitUntil {
                        try await f.value(
                            "SELECT count(*) FROM iap.jobs WHERE order_id = 'held' AND started_at IS NOT NULL"
                        ) == "1"
                    }
                    try await enqueueUnrelated(f, count: 20, from: 9300)
                    try await f.waitUntil(timeout: .seconds(40)) { try await fullOrders(f, prefix: "other-") == 20 }
                    // Long enough for the held answer to be given up twice over (half a lease each) without a cost.
                    try await f.waitUntil(timeout: .seconds(40)) {
                        try await f.value("SELECT last_error FROM iap.jobs WHERE order_id = 'held'")?.contains(
                            "waiting for a row lock"
                        ) == true
                    }
                    try await Task.sleep(for: .seconds(3))
                    #expect(try await f.value("SELECT outcome::text FROM iap.orders WHERE order_id = 'held'") == nil)
                    try await game.execute("COMMIT")
                    try await f.waitUntilSettled(timeout: .seconds(40))
                }
            }
            await game.close()
            let held = try await f.order("held")
            #expect(held["outcome"] == "full" && held["state"] == "succeeded" && held["attempts"] == "1")
            #expect(try await f.value("SELECT count(*) FROM iap.orders WHERE outcome IS DISTINCT FROM 'full'") == "0")
        }
    }

    @Test func stuckJobsCallsALeaseExpiredOnlyWhenTheJobsDaemonIsSilentToo() async throws {
        try await Fixture.with { f in
            // A running job whose heartbeat is 90 s old, as when a game transaction held its row that long.
            let job = try await f.enqueue("o1", receipt: Receipts.paying("9400"))
            try await f.setJob(job, state: "running", secondsAgo: 90)
            try await f.connection.execute(
                "INSERT INTO iap.daemons (daemon, attempt_limit_seconds) VALUES ('test-host:1:x', 75)"
            )
            // Its daemon heartbeats: not lapsed (no daemon would take it), and not overrun yet.
            #expect(try await f.value("SELECT count(*) FROM iap.stuck_jobs") == "0")
            // Its daemon is silent too: lapsed.
            try await f.connection.execute("UPDATE iap.daemons SET heartbeat_at = now() - interval '61 seconds'")
            #expect(try await f.value("SELECT reason FROM iap.stuck_jobs WHERE job_id = $1", [job]) == "lease_expired")
        }
    }
}

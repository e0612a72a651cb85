import Foundation
import ReceiptdCore

/// The game server's part in a chaos run: a transaction of its own that holds an order's row and its active
/// job's row locked across more than a lease, as an `iap.enqueue_*` call inside a transaction left open does,
/// then commits. The daemons must go on meanwhile: other jobs finish, and nothing is lost afterwards.
struct ChaosGameTransaction: Sendable {
    /// What the transaction held and what happened meanwhile.
    struct Held: Sendable {
        /// The order whose rows it held; `nil` when none had an active job (or the database was away).
        var orderID: String?
        /// How long it held them.
        var seconds: Double
        /// Other jobs the daemons finished while it held them.
        var othersFinished: Int
        /// Other jobs that were open when it took the locks.
        var othersOpen: Int

        /// The broken rule, if any: other orders must keep settling while the game holds one.
        var violations: [String] {
            guard let orderID, othersOpen > 0, othersFinished == 0 else { return [] }
            return [
                "no other job finished in the \(String(format: "%.1f", seconds)) s a game transaction held order \(orderID) "
                    + "(\(othersOpen) were open)"
            ]
        }
    }

    let database: String
    /// How long the locks are held: more than twice the chaos daemons' 3 s lease.
    var seconds: Double = 7

    /// Takes the locks on an order whose job is running (or else pending), holds them, commits.
    func run() async -> Held {
        var held = Held(orderID: nil, seconds: 0, othersFinished: 0, othersOpen: 0)
        guard let game = try? await PostgresConnection.connect(database) else { return held }
        // Counts from another connection: the game transaction's snapshot would not see the daemons' work.
        guard let observer = try? await PostgresConnection.connect(database) else {
            await game.close()
            return held
        }
        do {
            try await game.execute("BEGIN")
            held.orderID = try await game.execute(
                """
                SELECT o.order_id FROM iap.orders o JOIN iap.jobs j USING (order_id)
                WHERE j.state IN ('running', 'pending')
                ORDER BY j.state = 'running' DESC, j.id
                LIMIT 1
                FOR UPDATE OF o, j
                """
            ).first?["order_id"]
            let start = ContinuousClock.now
            let startedAt = try await observer.execute("SELECT now()::text AS t").first?["t"]
            held.othersOpen =
                try await observer.execute(
                    """
                    SELECT count(*) AS n FROM iap.jobs WHERE state IN ('pending', 'running') AND order_id IS DISTINCT FROM $1
                    """,
                    [held.orderID]
                ).first?.int("n") ?? 0
            try await Task.sleep(for: .seconds(seconds))
            held.othersFinished =
                try await observer.execute(
                    """
                    SELECT count(*) AS n FROM iap.jobs WHERE finished_at >= $2::timestamptz AND order_id IS DISTINCT FROM $1
                    """,
                    [held.orderID, startedAt]
                ).first?.int("n") ?? 0
            let elapsed = ContinuousClock.now - start
            held.seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            try await game.execute("COMMIT")
        } catch {
            // The database went away under it: the locks went with it, and the run's own checks still apply.
            held.orderID = nil
        }
        await observer.close()
        await game.close()
        return held
    }
}

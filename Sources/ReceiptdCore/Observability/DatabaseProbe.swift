import NIOCore
import NIOPosix
import Synchronization

/// Answers whether the database runs `SELECT 1` within a time limit; `/readyz` asks it.
///
/// Each check runs on a connection of the daemon's own pool, so readiness opens no connection beyond
/// `RECEIPTD_DB_CONNECTIONS`, and the caller waits at most `timeout`. While an earlier check is still
/// stuck on a hung server, a new one answers "not ready" at once instead of piling up.
package final class DatabaseProbe: Sendable {
    private let pool: DatabasePool
    private let timeout: Duration
    private let busy = Mutex(false)

    /// Creates a probe that checks on `pool` (the daemon's).
    package init(pool: DatabasePool, timeout: Duration = .seconds(2)) {
        self.pool = pool
        self.timeout = timeout
    }

    /// True when `SELECT 1` succeeded within the timeout.
    package func check() async -> Bool {
        let claimed = busy.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard claimed else { return false }
        let (pool, timeout) = (self.pool, self.timeout)
        return await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(timeout)) {
                answer.give(false)
            }
            // Goes on past the deadline when the server hangs; `busy` keeps the next checks from queueing behind it.
            Task {
                let answered = (try? await pool.execute("SELECT 1")) != nil
                self.release()
                timer.cancel()
                answer.give(answered)
            }
        }
    }

    private func release() { busy.withLock { $0 = false } }
}

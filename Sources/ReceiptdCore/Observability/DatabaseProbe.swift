import CLibPQ
import NIOCore
import NIOPosix
import Synchronization

/// Answers whether the database runs `SELECT 1` within a time limit; `/readyz` asks it.
///
/// Each check opens a short connection of its own on NIO's shared blocking pool (libpq blocks, so not on
/// Swift's cooperative pool) and the caller waits at most `timeout`. While an earlier check is still
/// stuck on a hung server, a new one answers "not ready" at once instead of piling up threads.
package final class DatabaseProbe: Sendable {
    private let connectionString: String
    private let timeout: Duration
    private let busy = Mutex(false)

    /// Creates a probe; `connectionString` as for `DATABASE_URL`.
    package init(connectionString: String, timeout: Duration = .seconds(2)) {
        self.connectionString = connectionString
        self.timeout = timeout
    }

    /// True when `SELECT 1` succeeded within the timeout.
    package func check() async -> Bool {
        let claimed = busy.withLock { busy in
            defer { busy = true }
            return !busy
        }
        guard claimed else { return false }
        let (connectionString, timeout) = (self.connectionString, self.timeout)
        // libpq's own limit keeps a stuck check from holding its thread much past our deadline.
        let connectTimeout = max(2, Int(timeout.components.seconds) + 1)
        return await withCheckedContinuation { continuation in
            let answer = FirstAnswer(continuation)
            let timer = MultiThreadedEventLoopGroup.singleton.any().scheduleTask(in: TimeAmount(timeout)) {
                answer.give(false)
            }
            NIOThreadPool.singleton.submit { state in
                let answered = state == .active && Self.selectOne(connectionString, connectTimeout: connectTimeout)
                self.release()
                timer.cancel()
                answer.give(answered)
            }
        }
    }

    private func release() { busy.withLock { $0 = false } }

    /// Connects, runs `SELECT 1`, disconnects. Blocking.
    private static func selectOne(_ connectionString: String, connectTimeout: Int) -> Bool {
        // expand_dbname = 1: `dbname` carries the whole connection string; libpq ignores it when empty.
        let names: [String] = ["dbname", "connect_timeout"]
        let settings: [String] = [connectionString, String(connectTimeout)]
        let keywords = names.map { strdup($0) }
        let values = settings.map { strdup($0) }
        defer { (keywords + values).forEach { free($0) } }
        let keywordPointers = keywords.map { UnsafePointer($0) } + [nil]
        let valuePointers = values.map { UnsafePointer($0) } + [nil]
        guard let connection = PQconnectdbParams(keywordPointers, valuePointers, 1) else { return false }
        defer { PQfinish(connection) }
        guard PQstatus(connection) == CONNECTION_OK, let result = PQexec(connection, "SELECT 1") else { return false }
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_TUPLES_OK
    }
}

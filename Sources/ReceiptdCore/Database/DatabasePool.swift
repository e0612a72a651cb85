import Foundation

/// A small pool of `PostgresConnection`s, opened on demand and dropped when they break.
package actor DatabasePool {
    private let connectionString: String
    private let maximumConnections: Int
    private let sessionSettings: [(name: String, value: String)]
    private var idle: [PostgresConnection] = []
    private var openCount = 0
    private var waiters: [CheckedContinuation<Void, Never>] = []
    private var isClosed = false

    /// Creates a pool; no connection is opened until one is needed. Each new connection sets `sessionSettings`
    /// (run-time parameters, as `set_config` takes them) before it is used.
    package init(
        connectionString: String,
        maximumConnections: Int,
        sessionSettings: [(name: String, value: String)] = []
    ) {
        self.connectionString = connectionString
        self.maximumConnections = max(1, maximumConnections)
        self.sessionSettings = sessionSettings
    }

    /// Runs `body` with a connection to itself; a connection that fails with a connection error is closed, not reused.
    package func withConnection<T: Sendable>(
        _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        let connection = try await checkOut()
        do {
            let value = try await body(connection)
            await checkIn(connection)
            return value
        } catch let error as PostgresError where error.kind == .connection {
            await discard(connection)
            throw error
        } catch {
            await checkIn(connection)
            throw error
        }
    }

    /// Runs a blocking session body on a pooled connection (see `PostgresConnection.withSession`).
    package func withSession<T: Sendable>(_ body: @escaping @Sendable (DatabaseSession) throws -> T) async throws -> T {
        try await withConnection { try await $0.withSession(body) }
    }

    /// Runs one statement on a pooled connection.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [any SQLParameter] = []) async throws -> QueryResult {
        try await withSession { try $0.execute(sql, parameters) }
    }

    /// Closes every idle connection; connections in use close when they come back.
    package func close() async {
        isClosed = true
        let connections = idle
        idle.removeAll()
        for connection in connections { await connection.close() }
        waiters.forEach { $0.resume() }
        waiters.removeAll()
    }

    private func checkOut() async throws -> PostgresConnection {
        while true {
            guard !isClosed else { throw PostgresError(kind: .connection, message: "database pool is closed") }
            if let connection = idle.popLast() { return connection }
            if openCount < maximumConnections {
                openCount += 1
                do {
                    let connection = try await PostgresConnection.connect(connectionString)
                    do {
                        for setting in sessionSettings {
                            try await connection.execute(
                                "SELECT set_config($1, $2, false)",
                                [setting.name, setting.value]
                            )
                        }
                    } catch {
                        await connection.close()
                        throw error
                    }
                    return connection
                } catch {
                    openCount -= 1
                    wakeOneWaiter()
                    throw error
                }
            }
            await withCheckedContinuation { waiters.append($0) }
        }
    }

    private func checkIn(_ connection: PostgresConnection) async {
        if isClosed {
            openCount -= 1
            await connection.close()
        } else {
            idle.append(connection)
        }
        wakeOneWaiter()
    }

    private func discard(_ connection: PostgresConnection) async {
        openCount -= 1
        wakeOneWaiter()
        await connection.close()
    }

    private func wakeOneWaiter() {
        if !waiters.isEmpty { waiters.removeFirst().resume() }
    }
}

/// A session holding a session-level advisory lock, as `pg_locks` and `pg_stat_activity` show it: what an
/// operator needs to find the session (and end it with `pg_terminate_backend`).
package struct AdvisoryLockHolder: Sendable, Codable, Equatable, CustomStringConvertible {
    /// The backend's process id.
    package var pid: Int
    /// The role it logged in as.
    package var user: String?
    /// Its `application_name`.
    package var applicationName: String?

    /// `pid 123, user receiptd_app, application_name "psql"`.
    package var description: String {
        "pid \(pid), user \(user ?? "?"), application_name \"\((applicationName ?? "").terminalSafe)\""
    }

    /// Reads who holds the `bigint` advisory lock `key`: PostgreSQL keeps such a key as its high 32 bits in
    /// `classid`, its low 32 bits in `objid`, and `objsubid` 1. Any role may read both views.
    static let query = """
        SELECT l.pid, a.usename, a.application_name
        FROM pg_catalog.pg_locks l LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
        WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 1 AND l.database = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database())
          AND l.classid = ($1::bigint >> 32)::oid AND l.objid = ($1::bigint & 4294967295)::oid
        ORDER BY l.pid
        """

    /// The sessions holding `key` now.
    static func holders(of key: Int64, in session: DatabaseSession) throws -> [AdvisoryLockHolder] {
        try session.execute(query, [key]).namedRows.map(Self.init(row:))
    }

    /// The sessions holding `key` now.
    static func holders(of key: Int64, on connection: PostgresConnection) async throws -> [AdvisoryLockHolder] {
        try await connection.execute(query, [key]).namedRows.map(Self.init(row:))
    }

    private init(row: QueryResult.Row) throws {
        self.init(pid: try row.int("pid"), user: row["usename"], applicationName: row["application_name"])
    }

    /// Creates a holder from values.
    package init(pid: Int, user: String?, applicationName: String?) {
        self.pid = pid
        self.user = user
        self.applicationName = applicationName
    }
}

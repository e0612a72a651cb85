import CLibPQ

/// The statements prepared on one connection, by SQL text.
///
/// Preparing once saves the server parsing and planning the daemon's few statements on every call,
/// which was most of a small statement's cost. Touched only on the connection's thread.
final class PreparedStatements {
    /// Beyond this many distinct texts a statement runs unprepared: the daemon has a few dozen, so
    /// only an unforeseen caller could get there, and it must not grow the server's memory without end.
    static let capacity = 256

    private var names: [String: String] = [:]

    /// The server-side name for `sql`, preparing it first if needed; `nil` when the cache is full.
    func name(for sql: String, parameterCount: Int, on handle: OpaquePointer) throws -> String? {
        if let name = names[sql] { return name }
        guard names.count < Self.capacity else { return nil }
        let name = "receiptd_\(names.count)"
        // Types are left to the server to infer, as PQexecParams does.
        _ = try DatabaseSession.consume(PQprepare(handle, name, sql, Int32(parameterCount), nil), connection: handle)
        names[sql] = name
        return name
    }
}

import CLibPQ
import Foundation

/// Blocking access to one connection, valid only inside `PostgresConnection.withSession`,
/// which runs it on the connection's own thread.
package struct DatabaseSession {
    let handle: OpaquePointer
    let prepared: PreparedStatements

    /// Runs one statement with its parameters bound by libpq, never spliced into the SQL. The statement
    /// is prepared on its first use on this connection and executed by name from then on.
    @discardableResult
    package func execute(_ sql: String, _ parameters: [any SQLParameter] = []) throws -> QueryResult {
        let name = try prepared.name(for: sql, parameterCount: parameters.count, on: handle)
        let result = Self.withParameterValues(parameters) { values, count in
            if let name { return PQexecPrepared(handle, name, count, values, nil, nil, 0) }
            return PQexecParams(handle, sql, count, nil, values, nil, nil, 0)
        }
        return try Self.consume(result, connection: handle)
    }

    /// Calls `body` with the parameters as C strings (NULL for SQL NULL), valid only during the call.
    static func withParameterValues<T>(
        _ parameters: [any SQLParameter],
        _ body: (UnsafePointer<UnsafePointer<CChar>?>?, Int32) -> T
    ) -> T {
        let cStrings: [UnsafeMutablePointer<CChar>?] = parameters.map { $0.sqlText.flatMap { strdup($0) } }
        defer { cStrings.forEach { free($0) } }
        let values = cStrings.map { UnsafePointer($0) }
        return values.withUnsafeBufferPointer { body($0.baseAddress, Int32(values.count)) }
    }

    /// Runs a fixed, parameter-free script that may hold several statements (migrations only).
    package func executeScript(_ sql: String) throws {
        _ = try Self.consume(PQexec(handle, sql), connection: handle)
    }

    /// Runs `body` inside `BEGIN … COMMIT`, rolling back when it throws.
    package func transaction<T>(_ body: (DatabaseSession) throws -> T) throws -> T {
        try execute("BEGIN")
        return try rollingBack { session in
            let value = try body(session)
            try session.execute("COMMIT")
            return value
        }
    }

    /// Runs `body`, which begins and commits a transaction itself (a pipeline's `BEGIN` … `COMMIT`, say); when it
    /// throws, whatever transaction it left open is rolled back, so the connection goes back to the pool clean.
    package func rollingBack<T>(_ body: (DatabaseSession) throws -> T) throws -> T {
        do {
            return try body(self)
        } catch {
            // A lost connection makes ROLLBACK fail too; the server rolls back by itself then.
            _ = try? execute("ROLLBACK")
            throw error
        }
    }

    static func consume(_ result: OpaquePointer?, connection: OpaquePointer) throws -> QueryResult {
        guard let result else {
            throw PostgresError(kind: .connection, message: String(cString: PQerrorMessage(connection)))
        }
        defer { PQclear(result) }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return copy(result)
        default:
            let sqlState = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = String(cString: PQresultErrorMessage(result))
            let lost = PQstatus(connection) != CONNECTION_OK
            throw PostgresError(kind: lost ? .connection : .query, message: message, sqlState: sqlState)
        }
    }

    private static func copy(_ result: OpaquePointer) -> QueryResult {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
        var rows: [[String?]] = []
        rows.reserveCapacity(rowCount)
        for row in 0..<rowCount {
            rows.append(
                (0..<columnCount).map { column in
                    PQgetisnull(result, Int32(row), Int32(column)) == 1
                        ? nil : String(cString: PQgetvalue(result, Int32(row), Int32(column)))
                }
            )
        }
        let affected = Int(String(cString: PQcmdTuples(result))) ?? rowCount
        return QueryResult(columns: columns, rows: rows, affectedRows: affected)
    }
}

// A session must stay on its connection's thread.
@available(*, unavailable)
extension DatabaseSession: Sendable {}

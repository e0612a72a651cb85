import CLibPQ

/// One statement with its parameters, for ``DatabaseSession/pipeline(_:)``.
package struct SQLStatement {
    /// The SQL text, with `$n` placeholders.
    package var sql: String
    /// Values for the placeholders.
    package var parameters: [any SQLParameter]

    /// Creates a statement.
    package init(_ sql: String, _ parameters: [any SQLParameter] = []) {
        self.sql = sql
        self.parameters = parameters
    }
}

extension DatabaseSession {
    /// Sends `statements` in one round trip (libpq pipeline mode) and returns their results in order.
    ///
    /// The server runs them one after another; after the first that fails it skips the rest, and that
    /// failure is thrown. Inside `BEGIN`, the transaction is then aborted and needs a `ROLLBACK`.
    package func pipeline(_ statements: [SQLStatement]) throws -> [QueryResult] {
        // Preparing is a round trip of its own, so it happens before the pipeline, once per connection.
        let names = try statements.map { statement -> String in
            guard
                let name = try prepared.name(for: statement.sql, parameterCount: statement.parameters.count, on: handle)
            else {
                throw PostgresError(kind: .query, message: "too many distinct statements to pipeline")
            }
            return name
        }
        guard PQenterPipelineMode(handle) == 1 else { throw lostConnection("could not enter pipeline mode") }
        for (statement, name) in zip(statements, names) {
            let sent = Self.withParameterValues(statement.parameters) { values, count in
                PQsendQueryPrepared(handle, name, count, values, nil, nil, 0)
            }
            guard sent == 1 else { throw lostConnection("could not send a pipelined statement") }
        }
        guard PQpipelineSync(handle) == 1 else { throw lostConnection("could not end the pipeline") }
        let outcome = try collect(count: statements.count)
        guard PQexitPipelineMode(handle) == 1 else { throw lostConnection("could not leave pipeline mode") }
        return try outcome.get()
    }

    /// Reads one result per statement and the closing sync; a statement's error is returned, not thrown,
    /// so that the rest of the pipeline is still read off the connection.
    private func collect(count: Int) throws -> Result<[QueryResult], Error> {
        var results: [QueryResult] = []
        var failure: Error?
        for _ in 0..<count {
            guard let result = PQgetResult(handle) else { throw lostConnection("a pipelined statement gave no result") }
            if PQresultStatus(result) == PGRES_PIPELINE_ABORTED {
                PQclear(result)
            } else {
                do { results.append(try Self.consume(result, connection: handle)) } catch { failure = failure ?? error }
            }
            // Each statement's results end with a NULL.
            if let extra = PQgetResult(handle) {
                PQclear(extra)
                throw lostConnection("a pipelined statement gave two results")
            }
        }
        guard let sync = PQgetResult(handle) else { throw lostConnection("the pipeline did not end") }
        defer { PQclear(sync) }
        guard PQresultStatus(sync) == PGRES_PIPELINE_SYNC else {
            throw lostConnection("the pipeline ended out of step")
        }
        if let failure { return .failure(failure) }
        return .success(results)
    }

    /// A connection whose pipeline is out of step cannot be reused: the pool closes it on this error.
    private func lostConnection(_ what: String) -> PostgresError {
        PostgresError(kind: .connection, message: "\(what): \(String(cString: PQerrorMessage(handle)))")
    }
}

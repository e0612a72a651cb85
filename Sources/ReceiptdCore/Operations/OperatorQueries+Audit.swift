extension OperatorQueries {
    /// Runs `body` in one transaction that names `actor` (`SET LOCAL receiptd.actor`), so that the operator
    /// function it calls records who did it in `iap.operator_actions`. A refusal rolls that transaction back:
    /// it is then recorded on its own, with its message, and thrown as an `OperatorError`.
    func audited<T: Sendable>(
        _ action: OperatorAction,
        target: String,
        orderID: String?,
        _ body: @escaping @Sendable (DatabaseSession) throws -> T
    ) async throws -> T {
        let actor = self.actor ?? ""
        do {
            return try await translatingRefusals {
                try await connection.withSession { session in
                    try session.transaction { session in
                        try session.execute("SELECT set_config('receiptd.actor', $1, true)", [actor])
                        return try body(session)
                    }
                }
            }
        } catch let refusal as OperatorError {
            let result: String
            switch refusal {
            case .notFound(let message): result = "not found: \(message)"
            case .refused(let message): result = "refused: \(message)"
            }
            try await connection.withSession { session in
                try session.transaction { session in
                    try session.execute("SELECT set_config('receiptd.actor', $1, true)", [actor])
                    try session.execute(
                        "SELECT iap.record_operator_action($1, $2, $3, $4)",
                        [action.rawValue, target, result, orderID]
                    )
                }
            }
            throw refusal
        }
    }
}

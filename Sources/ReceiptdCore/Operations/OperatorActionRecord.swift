/// One row of `iap.operator_actions`: who did what to what, when, with what result.
package struct OperatorActionRecord: Sendable, Codable, Equatable {
    /// When (ISO-8601, UTC).
    package var at: String
    /// The console's signed-in name, the CLI's OS user, or the database login.
    package var actor: String
    /// An `OperatorAction` raw value (`retry`, `cancel`, `assign`, …).
    package var action: String
    /// What it acted on (an order id, a transaction id, webhook ids).
    package var target: String
    /// What came of it (`refused: …` and `not found: …` for refusals).
    package var result: String
    /// The database login it came through.
    package var sessionUser: String
}

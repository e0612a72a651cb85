import Foundation

/// The body of `POST /fake/transactions`: `{"transaction": {payload}, "script": [steps]}`,
/// how processes other than the test's own register a signed transaction.
struct ServerAPIRegistration {
    /// The transaction to answer for.
    let transaction: SignedTransactionPayload
    /// Its per-call behaviour; empty when the body has none.
    let script: [ScriptStep]

    /// Parses a body; `nil` when it has no decodable `transaction`.
    ///
    /// The script is read as leniently as a ``SyntheticReceipt``'s (see ``ScriptStep/init(jsonObject:)``).
    init?(body: Data) {
        guard let fields = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any],
            let transactionObject = fields["transaction"] as? [String: Any],
            let transactionJSON = try? JSONSerialization.data(withJSONObject: transactionObject),
            let transaction = try? JSONDecoder().decode(SignedTransactionPayload.self, from: transactionJSON)
        else { return nil }
        self.transaction = transaction
        script = (fields["script"] as? [Any] ?? []).map(ScriptStep.init(jsonObject:))
    }
}

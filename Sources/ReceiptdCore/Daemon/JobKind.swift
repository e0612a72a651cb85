/// What a job verifies: `iap.jobs.kind`.
public enum JobKind: String, Sendable, Codable, CaseIterable {
    /// An App Store receipt (base64 PKCS#7), sent by `iap.enqueue_receipt`.
    case receipt
    /// A StoreKit 2 signed transaction (compact JWS) or transaction id, sent by `iap.enqueue_transaction`.
    case transaction

    /// Reads a `kind` column; an unknown value is an error rather than a guess.
    init(_ text: String) throws {
        guard let kind = JobKind(rawValue: text) else {
            throw PostgresError(kind: .query, message: "unknown job kind \(text)")
        }
        self = kind
    }
}

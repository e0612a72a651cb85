/// What a job verifies: `iap.jobs.kind`.
package enum JobKind: String, Sendable, Codable, CaseIterable {
    /// An App Store receipt (base64 PKCS#7), sent by `iap.enqueue_receipt`.
    case receipt
    /// A StoreKit 2 signed transaction (compact JWS) or transaction id, sent by `iap.enqueue_transaction`.
    case transaction
    /// A Google Play purchase token, sent by `iap.enqueue_google_purchase`.
    case googlePurchase = "google_purchase"

    /// Reads a `kind` column; an unknown value is an error rather than a guess.
    init(_ text: String) throws {
        guard let kind = JobKind(rawValue: text) else {
            throw PostgresError(kind: .query, message: "unknown job kind \(text)")
        }
        self = kind
    }
}

import Foundation

/// Builds the App Store Server API's JSON answers: by concatenation where every
/// variable part is a number, a fixed message, or a JWS (base64url and dots);
/// with `JSONSerialization` where a registered string (a bundle id) goes in.
enum ServerAPIAnswerBody {
    /// The error code of "Transaction id not found".
    static let transactionIDNotFound = 4_040_010
    /// The error code of "Rate limit exceeded".
    static let rateLimitExceeded = 4_290_000
    /// The error code of "Invalid request revision."
    static let invalidRevision = 4_000_005

    /// Apple's messages for the codes tests script most; others get a generic one.
    private static let messages = [
        4_000_000: "Bad request.",
        4_000_005: "Invalid request revision.",
        4_000_006: "Invalid transaction id.",
        4_010_000: "Unauthenticated.",
        4_040_001: "Account not found.",
        4_040_010: "Transaction id not found.",
        4_290_000: "Rate limit exceeded.",
        5_000_000: "An unknown error occurred.",
        5_000_001: "An unknown error occurred. Please try again.",
    ]

    /// `{"errorCode":N,"errorMessage":"…"}`.
    static func error(_ code: Int) -> String {
        "{\"errorCode\":\(code),\"errorMessage\":\"\(messages[code] ?? "Scripted error.")\"}"
    }

    /// `{"signedTransactionInfo":"<JWS>"}`, Get Transaction Info's answer.
    static func transactionInfo(signed jws: String) -> String {
        "{\"signedTransactionInfo\":\"\(jws)\"}"
    }

    /// Get Transaction History v2's answer (`HistoryResponse`).
    static func history(
        revision: String,
        hasMore: Bool,
        bundleID: String,
        environment: String,
        signed: [String]
    ) -> String {
        let fields: [String: Any] = [
            "revision": revision, "hasMore": hasMore, "bundleId": bundleID, "environment": environment,
            "signedTransactions": signed,
        ]
        do {
            let data = try JSONSerialization.data(
                withJSONObject: fields,
                options: [.sortedKeys, .withoutEscapingSlashes]
            )
            return String(decoding: data, as: UTF8.self)
        } catch {
            // Strings, a Bool and an array of strings always serialize.
            preconditionFailure("history answer failed to serialize: \(error)")
        }
    }

    /// The HTTP status Apple pairs with an error code: its first three digits (4040010 → 404).
    static func httpStatus(forErrorCode code: Int) -> Int {
        let status = code / 10_000
        return (400...599).contains(status) ? status : 500
    }
}

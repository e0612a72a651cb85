/// Builds the App Store Server API's JSON answers by concatenation: every
/// variable part is a number, a fixed message, or a JWS (base64url and dots).
enum ServerAPIAnswerBody {
    /// The error code of "Transaction id not found".
    static let transactionIDNotFound = 4_040_010
    /// The error code of "Rate limit exceeded".
    static let rateLimitExceeded = 4_290_000

    /// Apple's messages for the codes tests script most; others get a generic one.
    private static let messages = [
        4_000_000: "Bad request.",
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

    /// The HTTP status Apple pairs with an error code: its first three digits (4040010 → 404).
    static func httpStatus(forErrorCode code: Int) -> Int {
        let status = code / 10_000
        return (400...599).contains(status) ? status : 500
    }
}

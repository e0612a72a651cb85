import Foundation

/// What the stand-in Google Play answers one call with, and when.
struct GooglePlayAnswer: Sendable {
    /// The HTTP status.
    var status: Int
    /// The body; empty sends none.
    var body: String = ""
    /// `Content-Type` of a non-empty body.
    var contentType = "application/json; charset=UTF-8"
    /// Headers besides the content ones, like `Retry-After`.
    var headers: [(String, String)] = []
    /// Wait before answering; 0 answers at once, without scheduling.
    var delayMilliseconds = 0
    /// Close the connection instead of answering.
    var closeConnection = false

    /// `status` with `value` as JSON, keys sorted.
    static func json(_ status: Int, _ value: some Encodable) -> GooglePlayAnswer {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // The answer types hold only strings and numbers: encoding cannot fail.
        return GooglePlayAnswer(
            status: status,
            body: String(decoding: (try? encoder.encode(value)) ?? Data("{}".utf8), as: UTF8.self)
        )
    }
}

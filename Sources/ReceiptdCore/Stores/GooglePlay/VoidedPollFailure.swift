/// `voidedpurchases.list` answered something other than 200.
struct VoidedPollFailure: Error, CustomStringConvertible {
    /// The HTTP status.
    var status: Int
    /// Google's `error.message`, if any.
    var message: String?
    /// The `startTime` asked for (milliseconds since 1970).
    var startTime: Int64

    var description: String {
        let meaning =
            status == 400
            ? " (bad request: Google refuses a startTime over 30 days back, or another invalid value)" : ""
        return "voidedpurchases.list answered HTTP \(status)\(meaning) for startTime \(startTime)"
            + (message.map { ": \($0)" } ?? "")
    }
}

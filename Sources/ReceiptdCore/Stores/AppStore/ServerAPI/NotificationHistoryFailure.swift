/// Get Notification History did not give a page: the verdict the request earned.
struct NotificationHistoryFailure: Error, CustomStringConvertible {
    /// A transient failure, a refusal for good, or no Server API slot free yet (`postpone`).
    var verdict: Verdict

    var description: String {
        switch verdict {
        case .retry(let failure): failure.reason
        case .reject(let reason): reason
        case .postpone(_, let reason): reason
        case .verified: "Get Notification History: unexpected answer"
        }
    }
}

/// How one verification attempt with Apple ended, before any judgement about retrying.
package enum AppleCallResult: Sendable, Equatable {
    /// Apple answered with its JSON; `environment` is the endpoint that answered.
    case answered(AppleVerifyResponse, environment: StoreEnvironment)
    /// The endpoint answered with an HTTP status other than 200; `retryAfter` when it asked for a wait.
    case httpStatus(Int, retryAfter: Duration?)
    /// HTTP 200 with a body that is not Apple's JSON (Apple has answered outages with HTML pages).
    case garbled(String)
    /// No answer: connection refused or reset, timeout, body too large.
    case transport(String)
}

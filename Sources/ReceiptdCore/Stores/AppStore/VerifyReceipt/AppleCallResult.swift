/// How one verification attempt with Apple ended, before any judgement about retrying.
package enum AppleCallResult: Sendable, Equatable {
    /// Apple answered with its JSON; `environment` is the endpoint that answered.
    case answered(AppleVerifyResponse, environment: AppleEnvironment)
    /// The endpoint answered with an HTTP status other than 200; `retryAfter` in seconds when it said so.
    case httpStatus(Int, retryAfter: Double?)
    /// HTTP 200 with a body that is not Apple's JSON (Apple has answered outages with HTML pages).
    case garbled(String)
    /// No answer: connection refused or reset, timeout, body too large.
    case transport(String)
}

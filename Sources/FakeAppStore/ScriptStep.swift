/// What the stand-in does on one call of a scripted ``SyntheticReceipt`` or
/// registered signed transaction.
///
/// On verifyReceipt, when several answers are set, the first of `reset`, `http`,
/// `raw`, `status` wins. On the App Store Server API the first of `reset`,
/// `error_code` (sent with `http` as its status), `http`, `raw` wins, and `status`
/// is ignored. A step with none of them (say only `delay_ms`) falls through to
/// the normal checks and answer. `delay_ms` always adds to the wait.
package struct ScriptStep: Codable, Sendable, Equatable {
    /// Answer this HTTP status with an empty body (Server API: the status of `errorCode`'s answer).
    package var http: Int?
    /// `Retry-After` header value sent with `http` or `errorCode`, verbatim.
    package var retryAfter: String?
    /// Answer this Apple status as JSON (HTTP 200).
    package var status: Int?
    /// `is_retryable` sent with `status`.
    package var isRetryable: Bool?
    /// Answer HTTP 200 with this body as `text/html`.
    package var raw: String?
    /// When `true`, close the connection without answering.
    package var reset: Bool?
    /// Extra wait before this call's answer, in milliseconds.
    package var delayMilliseconds: Int?
    /// Server API only: answer `{"errorCode":N,"errorMessage":…}` with HTTP `http`, or by default
    /// the status the code starts with (4040010 → 404, 4290000 → 429, 5000000 → 500).
    package var errorCode: Int?

    /// Creates a step; every part is optional.
    package init(
        http: Int? = nil,
        retryAfter: String? = nil,
        status: Int? = nil,
        isRetryable: Bool? = nil,
        raw: String? = nil,
        reset: Bool? = nil,
        delayMilliseconds: Int? = nil,
        errorCode: Int? = nil
    ) {
        self.http = http
        self.retryAfter = retryAfter
        self.status = status
        self.isRetryable = isRetryable
        self.raw = raw
        self.reset = reset
        self.delayMilliseconds = delayMilliseconds
        self.errorCode = errorCode
    }

    /// A step answering an HTTP status (e.g. 503) with an empty body.
    package static func httpStatus(_ status: Int, retryAfter: String? = nil) -> ScriptStep {
        ScriptStep(http: status, retryAfter: retryAfter)
    }

    /// A step answering an Apple JSON status (e.g. 21005).
    package static func appleStatus(_ status: Int, isRetryable: Bool? = nil) -> ScriptStep {
        ScriptStep(status: status, isRetryable: isRetryable)
    }

    /// A step answering HTTP 200 with a non-JSON body, like a proxy's error page.
    package static func rawBody(_ body: String) -> ScriptStep {
        ScriptStep(raw: body)
    }

    /// A Server API step answering an Apple error code (e.g. 4290000 with a `Retry-After` in UNIX milliseconds).
    package static func serverAPIError(_ code: Int, http: Int? = nil, retryAfter: String? = nil) -> ScriptStep {
        ScriptStep(http: http, retryAfter: retryAfter, errorCode: code)
    }

    /// A step closing the connection without answering.
    package static let reset = ScriptStep(reset: true)

    private enum CodingKeys: String, CodingKey {
        case http
        case retryAfter = "retry_after"
        case status
        case isRetryable = "is_retryable"
        case raw
        case reset
        case delayMilliseconds = "delay_ms"
        case errorCode = "error_code"
    }
}

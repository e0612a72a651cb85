/// What the stand-in does on one call of a scripted ``SyntheticReceipt``.
///
/// When several answers are set, the first of `reset`, `http`, `raw`, `status`
/// wins. A step with none of them (say only `delay_ms`) falls through to the
/// normal checks and answer. `delay_ms` always adds to the wait.
public struct ScriptStep: Codable, Sendable, Equatable {
    /// Answer this HTTP status with an empty body.
    public var http: Int?
    /// `Retry-After` header value sent with `http`.
    public var retryAfter: String?
    /// Answer this Apple status as JSON (HTTP 200).
    public var status: Int?
    /// `is_retryable` sent with `status`.
    public var isRetryable: Bool?
    /// Answer HTTP 200 with this body as `text/html`.
    public var raw: String?
    /// When `true`, close the connection without answering.
    public var reset: Bool?
    /// Extra wait before this call's answer, in milliseconds.
    public var delayMilliseconds: Int?

    /// Creates a step; every part is optional.
    public init(
        http: Int? = nil,
        retryAfter: String? = nil,
        status: Int? = nil,
        isRetryable: Bool? = nil,
        raw: String? = nil,
        reset: Bool? = nil,
        delayMilliseconds: Int? = nil
    ) {
        self.http = http
        self.retryAfter = retryAfter
        self.status = status
        self.isRetryable = isRetryable
        self.raw = raw
        self.reset = reset
        self.delayMilliseconds = delayMilliseconds
    }

    /// A step answering an HTTP status (e.g. 503) with an empty body.
    public static func httpStatus(_ status: Int, retryAfter: String? = nil) -> ScriptStep {
        ScriptStep(http: status, retryAfter: retryAfter)
    }

    /// A step answering an Apple JSON status (e.g. 21005).
    public static func appleStatus(_ status: Int, isRetryable: Bool? = nil) -> ScriptStep {
        ScriptStep(status: status, isRetryable: isRetryable)
    }

    /// A step answering HTTP 200 with a non-JSON body, like a proxy's error page.
    public static func rawBody(_ body: String) -> ScriptStep {
        ScriptStep(raw: body)
    }

    /// A step closing the connection without answering.
    public static let reset = ScriptStep(reset: true)

    private enum CodingKeys: String, CodingKey {
        case http
        case retryAfter = "retry_after"
        case status
        case isRetryable = "is_retryable"
        case raw
        case reset
        case delayMilliseconds = "delay_ms"
    }
}

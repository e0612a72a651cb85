/// What the stand-in will do for one App Store Server API call, and when.
struct ServerAPIAnswer {
    /// The shape of the answer.
    enum Reply {
        /// This HTTP status with a JSON body; `errorCode` is recorded when the body is an Apple error.
        case json(status: Int, body: String, errorCode: Int?, retryAfter: String?)
        /// This HTTP status with an empty body.
        case emptyHTTP(status: Int, retryAfter: String?)
        /// HTTP 200 with a non-JSON `text/html` body.
        case html(String)
        /// Close the connection without answering.
        case closeConnection
    }

    /// The answer itself.
    var reply: Reply
    /// Wait before answering; 0 answers at once, without scheduling.
    var delayMilliseconds: Int
    /// Position of the call in the Server API ledger's log.
    var recordIndex: Int
}

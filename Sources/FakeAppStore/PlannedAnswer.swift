/// What the stand-in will do for one verifyReceipt call, and when.
struct PlannedAnswer {
    /// The shape of the answer.
    enum Reply {
        /// HTTP 200 with an Apple JSON body carrying `status`.
        case appleJSON(status: Int, body: String)
        /// This HTTP status with an empty body.
        case emptyHTTP(status: Int, retryAfter: String?)
        /// HTTP 200 with a non-JSON `text/html` body.
        case html(String)
        /// Close the connection without answering.
        case closeConnection
        /// Never answer and leave the connection open, like a server that hangs.
        case neverAnswer
    }

    /// The answer itself.
    var reply: Reply
    /// Wait before answering; 0 answers at once, without scheduling.
    var delayMilliseconds: Int
    /// Position of the call in the ledger's log.
    var recordIndex: Int
}

import NIOHTTP1

extension MetricsServer {
    /// One response: status, content type and body.
    struct Answer {
        var status: HTTPResponseStatus
        var contentType = "text/plain; charset=utf-8"
        var body: [UInt8]

        init(_ status: HTTPResponseStatus, _ text: String) {
            self.status = status
            self.body = Array(text.utf8)
        }
    }
}

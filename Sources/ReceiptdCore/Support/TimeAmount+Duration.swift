import NIOCore

extension TimeAmount {
    /// `duration` as NIO's time amount, for HTTP deadlines and scheduled tasks.
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}

import NIOCore
import Synchronization

extension MetricsServer {
    /// Counts the server's open connections, so that it can turn away those over its limit.
    final class ConnectionGate: Sendable {
        private let limit: Int
        private let open = Atomic<Int>(0)

        init(limit: Int) {
            self.limit = limit
        }

        /// Counts `channel` until it closes; false when it is over the limit.
        ///
        /// A refused channel counts too until it has closed, so open sockets, not served ones, stay within the limit.
        func admit(_ channel: any Channel) -> Bool {
            let count = open.wrappingAdd(1, ordering: .relaxed).newValue
            channel.closeFuture.whenComplete { _ in self.open.wrappingSubtract(1, ordering: .relaxed) }
            return count <= limit
        }
    }
}

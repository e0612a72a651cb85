import NIOCore
import Synchronization

extension HTTPEndpoint {
    /// Counts the endpoint's open connections, in all and per peer address, so that it can turn away those over
    /// either limit: one client (or one proxy in front) cannot take every connection from the stores.
    final class ConnectionGate: Sendable {
        private struct Open {
            var total = 0
            /// Open connections per peer IP address; a peer with none is forgotten.
            var byPeer: [String: Int] = [:]
        }

        private let limit: Int
        private let peerLimit: Int
        private let open = Mutex(Open())

        /// At most `limit` connections, `perPeer` of them from one IP address.
        init(limit: Int, perPeer: Int) {
            self.limit = limit
            self.peerLimit = perPeer
        }

        /// Counts `channel` until it closes; false when it is over the limit or its peer is over its share.
        ///
        /// A refused channel counts too until it has closed, so open sockets, not served ones, stay within the limit.
        func admit(_ channel: any Channel) -> Bool {
            // The address without its port: one client's many connections are one peer.
            let peer = channel.remoteAddress?.ipAddress ?? ""
            let admitted = open.withLock { open in
                open.total += 1
                open.byPeer[peer, default: 0] += 1
                return open.total <= limit && open.byPeer[peer, default: 0] <= peerLimit
            }
            channel.closeFuture.whenComplete { _ in self.release(peer) }
            return admitted
        }

        private func release(_ peer: String) {
            open.withLock { open in
                open.total -= 1
                let left = open.byPeer[peer, default: 1] - 1
                open.byPeer[peer] = left > 0 ? left : nil
            }
        }
    }
}

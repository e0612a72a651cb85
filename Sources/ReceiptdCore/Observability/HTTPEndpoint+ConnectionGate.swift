import NIOCore
import Synchronization

extension HTTPEndpoint {
    /// Counts the endpoint's open connections, in all and per peer address, so that it can turn away those over
    /// either limit: one client cannot take every connection from the stores.
    ///
    /// A trusted proxy (`TrustedProxies`) carries the requests of many clients, several in turn on one kept-alive
    /// connection. So its connections count only towards the total, and each request it forwards counts, while in
    /// flight, against the client it names, in the share that client's own connections would count in.
    final class ConnectionGate: Sendable {
        /// Whom an open connection counts against.
        enum Peer: Equatable {
            /// Its own address (as text; empty when it has none, as on a Unix socket).
            case address(String)
            /// A trusted proxy: only the connection's requests are counted, each against its client.
            case proxy(IPAddress)
        }

        /// Why a connection or a forwarded request was turned away: the `reason` of
        /// `receiptd_notification_connections_refused_total`.
        enum Refusal: String, Sendable {
            /// The endpoint had its limit of connections open.
            case connections
            /// The peer address had its share of connections open.
            case peer
            /// A trusted proxy forwarded a request for a client that had its share in flight (answered 429).
            case client
        }

        private let limit: Int
        private let peerLimit: Int
        let trustedProxies: TrustedProxies
        private let refused: @Sendable (Refusal) -> Void
        private let open = Mutex(Open())

        /// At most `limit` connections; at most `perPeer` of them, or of requests in flight that `trustedProxies`
        /// forward, for one IP address. `refused` hears of each turned away, outside the gate's lock.
        init(
            limit: Int,
            perPeer: Int,
            trustedProxies: TrustedProxies = TrustedProxies(),
            refused: @escaping @Sendable (Refusal) -> Void = { _ in }
        ) {
            self.limit = limit
            self.peerLimit = perPeer
            self.trustedProxies = trustedProxies
            self.refused = refused
        }

        /// Counts `channel` until it closes; `admitted` is false when it is over the limit or its peer is over its
        /// share. A refused channel counts too until it has closed, so open sockets, not served ones, stay within
        /// the limit.
        func admit(_ channel: any Channel) -> (peer: Peer, admitted: Bool) {
            let admission = admit(peer: channel.remoteAddress?.ipAddress)
            channel.closeFuture.whenComplete { _ in self.release(admission.peer) }
            return admission
        }

        /// Counts a connection from `text` (the peer's address without its port: one client's many connections
        /// are one peer); each call needs one `release` of the peer it returns.
        func admit(peer text: String?) -> (peer: Peer, admitted: Bool) {
            let address = text.flatMap { IPAddress($0) }
            let peer: Peer =
                if let address, trustedProxies.trusts(address) {
                    .proxy(address)
                } else {
                    .address(address?.description ?? text ?? "")
                }
            let refusal: Refusal? = open.withLock { open in
                open.total += 1
                guard open.total <= limit else {
                    if case .address(let key) = peer { open.byPeer[key, default: 0] += 1 }
                    return .connections
                }
                guard case .address(let key) = peer else { return nil }
                open.byPeer[key, default: 0] += 1
                return open.byPeer[key, default: 0] <= peerLimit ? nil : .peer
            }
            if let refusal { refused(refusal) }
            return (peer, refusal == nil)
        }

        /// Releases a connection `admit` counted.
        func release(_ peer: Peer) {
            open.withLock { open in
                open.total -= 1
                if case .address(let key) = peer { open.forget(key) }
            }
        }

        /// Counts a request a trusted proxy forwards for `client` while it is in flight; false when the client is
        /// over its share. Each call needs one `finishRequest`, refused or not.
        func startRequest(for client: IPAddress) -> Bool {
            let within = open.withLock { open in
                open.byPeer[client.description, default: 0] += 1
                return open.byPeer[client.description, default: 0] <= peerLimit
            }
            if !within { refused(.client) }
            return within
        }

        /// A request `startRequest` counted has been answered, or its connection closed.
        func finishRequest(for client: IPAddress) {
            open.withLock { $0.forget(client.description) }
        }

        private struct Open {
            var total = 0
            /// Per peer address: its open connections plus the requests forwarded for it in flight.
            var byPeer: [String: Int] = [:]

            /// One fewer for `key`; a peer with none is forgotten.
            mutating func forget(_ key: String) {
                let left = byPeer[key, default: 1] - 1
                byPeer[key] = left > 0 ? left : nil
            }
        }
    }
}

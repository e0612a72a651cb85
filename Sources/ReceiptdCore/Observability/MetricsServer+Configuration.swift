import Foundation

extension MetricsServer {
    /// Where the endpoint listens (`RECEIPTD_METRICS_ADDR`), and how many connections it serves for how long.
    package struct Configuration: Sendable, Equatable {
        /// Host or IP address to bind; `0.0.0.0` or `::` for every interface.
        package var host: String
        /// TCP port; 0 picks a free one (tests).
        package var port: Int
        /// Connections open at once; one more is closed as soon as it is accepted.
        package var maxConnections = 32
        /// Connections one peer IP address may hold at once: a quarter of `maxConnections` (at least 1). One more
        /// from it is closed as soon as it is accepted, so one client cannot shut the others out. A proxy in front
        /// is one peer.
        package var maxConnectionsPerPeer: Int { max(1, maxConnections / 4) }
        /// How long a connection may take to send a whole request, counted from when it opened and again
        /// from the end of each answer; then it is closed. Bounds idle, keep-alive and slowly dripped connections.
        package var requestTimeout: Duration = .seconds(5)

        /// Creates a configuration; the default is loopback only, port 9464.
        package init(host: String = "127.0.0.1", port: Int = 9464) {
            self.host = host
            self.port = port
        }

        /// `host:port`, with brackets around an IPv6 address.
        package var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

        /// Parses `host:port`, `[ipv6]:port` or `:port` (every interface); nil when malformed.
        package init?(address: String) {
            let text = address.trimmingCharacters(in: .whitespaces)
            guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
                (0...65_535).contains(port)
            else { return nil }
            var host = String(text[..<colon])
            if host.hasPrefix("[") && host.hasSuffix("]") {
                host = String(host.dropFirst().dropLast())
                guard host.contains(":") else { return nil }
            } else if host.contains(":") || host.contains("[") || host.contains("]") {
                return nil  // An IPv6 address needs its brackets.
            }
            guard !host.contains(where: \.isWhitespace) else { return nil }
            self.init(host: host.isEmpty ? "0.0.0.0" : host, port: port)
        }
    }
}

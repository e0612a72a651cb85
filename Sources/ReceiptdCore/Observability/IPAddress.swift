import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// An IPv4 or IPv6 address, as bytes. An IPv4-mapped IPv6 address (`::ffff:192.0.2.1`, how a dual-stack socket
/// names an IPv4 peer) is its IPv4 address, so one host is one peer and one match however it arrived.
package struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// 4 bytes for IPv4, 16 for IPv6, in network order.
    package let bytes: [UInt8]

    /// Parses a bare address (`192.0.2.1`, `2001:db8::1`); nil for anything else (names, ports, brackets, zones).
    package init?(_ text: some StringProtocol) {
        let text = String(text)
        var ipv4 = in_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            self.init(bytes: withUnsafeBytes(of: ipv4) { Array($0) })
            return
        }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, text, &ipv6) == 1 else { return nil }
        self.init(bytes: withUnsafeBytes(of: ipv6) { Array($0) })
    }

    /// From 4 or 16 bytes; a v4-mapped IPv6 address becomes its IPv4 address.
    package init(bytes: [UInt8]) {
        precondition(bytes.count == 4 || bytes.count == 16, "an IP address has 4 or 16 bytes")
        let mappedPrefix: [UInt8] = Array(repeating: 0, count: 10) + [0xff, 0xff]
        self.bytes = bytes.count == 16 && bytes.starts(with: mappedPrefix) ? Array(bytes.suffix(4)) : bytes
    }

    /// True for IPv4 (including a mapped address).
    package var isIPv4: Bool { bytes.count == 4 }

    /// The usual text: dotted IPv4, compressed IPv6.
    package var description: String {
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        bytes.withUnsafeBytes { raw in
            _ = inet_ntop(isIPv4 ? AF_INET : AF_INET6, raw.baseAddress, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

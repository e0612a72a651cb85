import Foundation

/// The proxies whose forwarding headers the notification intake believes (`RECEIPTD_TRUSTED_PROXIES`), and the
/// rule that names a request's client from them.
///
/// A request from a trusted proxy is counted against the client it forwards for: the rightmost address of
/// `X-Forwarded-For` that is not itself a trusted proxy (each proxy appends the address it was connected from,
/// so everything left of the last untrusted hop could have been written by the client). Without
/// `X-Forwarded-For`, RFC 7239's `Forwarded: for=` is read the same way. A request from anyone else is its own
/// client, whatever headers it sends.
package struct TrustedProxies: Sendable, Equatable {
    /// The entries, in the order given.
    package private(set) var blocks: [IPBlock] = []

    /// None: every request is counted by its own peer address.
    package init() {}

    /// The entries of a comma-separated list of addresses and CIDR blocks (blanks around entries and empty
    /// entries are ignored); throws the first entry that is neither.
    package init(parsing list: String) throws(BadEntry) {
        for entry in list.split(separator: ",") {
            let text = entry.trimmingCharacters(in: .whitespaces)
            guard !text.isEmpty else { continue }
            guard let block = IPBlock(text) else { throw BadEntry(entry: text) }
            blocks.append(block)
        }
    }

    /// An entry of the list that is not an address or a block.
    package struct BadEntry: Error, Equatable {
        /// The entry as written.
        package var entry: String
    }

    /// True when no proxy is trusted.
    package var isEmpty: Bool { blocks.isEmpty }

    /// True when `address` is in one of the blocks.
    package func trusts(_ address: IPAddress) -> Bool {
        blocks.contains { $0.contains(address) }
    }

    /// The client a request from `peer` is counted against.
    ///
    /// - Parameters:
    ///   - peer: the address the connection comes from.
    ///   - forwardedFor: the `X-Forwarded-For` lines in the order received (each a comma-separated list).
    ///   - forwarded: the `Forwarded` lines in the order received, read only when there is no `X-Forwarded-For`.
    /// - Returns: `peer` unless it is trusted; else the rightmost forwarded address that is not trusted. A
    ///   malformed or obfuscated hop (`unknown`, `_hidden`) ends the walk at the last good address before it,
    ///   and a chain of trusted proxies only ends at its leftmost one.
    package func client(peer: IPAddress, forwardedFor: [String], forwarded: [String] = []) -> IPAddress {
        guard trusts(peer) else { return peer }
        let hops: [Substring] =
            forwardedFor.isEmpty
            ? forwarded.flatMap(Self.forHops)
            : forwardedFor.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
        var client = peer
        for hop in hops.reversed() {
            guard let address = Self.address(in: hop) else { break }
            client = address
            guard trusts(address) else { break }
        }
        return client
    }

    /// The `for=` value of each element of one `Forwarded` line (RFC 7239), quotes kept; an element without one
    /// is an empty hop, which ends the walk.
    private static func forHops(_ line: String) -> [Substring] {
        line.split(separator: ",", omittingEmptySubsequences: false).map { element in
            let pairs = element.split(separator: ";").map { $0.split(separator: "=", maxSplits: 1) }
            let value = pairs.first {
                $0.count == 2 && $0[0].trimmingCharacters(in: .whitespaces).lowercased() == "for"
            }
            return value?[1] ?? ""
        }
    }

    /// The address of one hop: bare (`192.0.2.1`, `2001:db8::1`), with a port (`192.0.2.1:4711`,
    /// `[2001:db8::1]:4711`), bracketed, or any of these in double quotes (`Forwarded`).
    private static func address(in hop: Substring) -> IPAddress? {
        var text = hop.trimmingCharacters(in: .whitespaces)[...]
        if text.count >= 2 && text.first == "\"" && text.last == "\"" { text = text.dropFirst().dropLast() }
        if text.first == "[" {
            guard let close = text.firstIndex(of: "]") else { return nil }
            let rest = text[text.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest) else { return nil }
            return IPAddress(text[text.index(after: text.startIndex)..<close])
        }
        if let address = IPAddress(text) { return address }
        // `a.b.c.d:port`: only IPv4 takes a port without brackets.
        guard let colon = text.lastIndex(of: ":"), Self.isPort(text[colon...]) else { return nil }
        let host = text[..<colon]
        guard !host.contains(":") else { return nil }
        return IPAddress(host)
    }

    /// `:` then a port number, in digits.
    private static func isPort(_ text: Substring) -> Bool {
        let digits = text.dropFirst()
        return text.first == ":" && (1...5).contains(digits.count) && digits.allSatisfy { $0.isASCII && $0.isNumber }
            && Int(digits).map { $0 <= 65_535 } == true
    }
}

/// An address or a CIDR block of them (`10.0.0.0/8`, `fd00::/8`, `192.0.2.7`): one entry of
/// `RECEIPTD_TRUSTED_PROXIES`. A block of v4-mapped IPv6 addresses (`::ffff:10.0.0.0/104`) is the IPv4 block.
package struct IPBlock: Hashable, Sendable, CustomStringConvertible {
    /// The block's first address.
    package let address: IPAddress
    /// How many leading bits an address must share with `address`.
    package let prefixLength: Int

    /// Parses `address` or `address/prefix`; nil when malformed, when the prefix is out of range for the family,
    /// or when the address has bits set past the prefix (`10.0.0.1/8` is more likely a typo than a block).
    package init?(_ text: some StringProtocol) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let parsed = IPAddress(parts[0]) else { return nil }
        // The family as written: a mapped address's prefix counts the 96 bits in front of the IPv4 ones.
        let writtenBits = parts[0].contains(":") ? 128 : 32
        var length = writtenBits
        if parts.count == 2 {
            guard let given = Int(parts[1]), parts[1].allSatisfy(\.isASCII), parts[1].allSatisfy(\.isNumber),
                (0...writtenBits).contains(given)
            else { return nil }
            length = given
        }
        if writtenBits == 128 && parsed.isIPv4 {
            // `::ffff:a.b.c.d/n`: only meaningful as the IPv4 block /n-96.
            guard length >= 96 else { return nil }
            length -= 96
        }
        guard Self.masked(parsed.bytes, to: length) == parsed.bytes else { return nil }
        address = parsed
        prefixLength = length
    }

    /// True when `candidate` is in the block (an IPv4 address never matches an IPv6 block, nor the reverse).
    package func contains(_ candidate: IPAddress) -> Bool {
        candidate.bytes.count == address.bytes.count
            && Self.masked(candidate.bytes, to: prefixLength) == address.bytes
    }

    /// `address/prefix`, canonical.
    package var description: String { "\(address)/\(prefixLength)" }

    /// `bytes` with every bit past the first `length` cleared.
    private static func masked(_ bytes: [UInt8], to length: Int) -> [UInt8] {
        bytes.enumerated().map { index, byte in
            let kept = min(max(length - index * 8, 0), 8)
            return kept == 8 ? byte : byte & ~(0xff >> kept)
        }
    }
}

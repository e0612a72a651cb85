import Synchronization
import Testing

@testable import ReceiptdCore

/// Issue 48, item 8: `RECEIPTD_TRUSTED_PROXIES` and the rule that names a request's client from the forwarding
/// headers of a trusted proxy, and from nothing a request from anyone else sends.
@Suite struct TrustedProxiesTests {
    static func proxies(_ list: String) throws -> TrustedProxies { try TrustedProxies(parsing: list) }
    static func ip(_ text: String) throws -> IPAddress { try #require(IPAddress(text)) }

    @Test func blocksMatchTheirAddressesOnly() throws {
        let proxies = try Self.proxies("10.0.0.0/8, 192.0.2.7,fd00::/8 , 2001:db8::1, 172.16.0.0/12")
        for inside in ["10.0.0.1", "10.255.255.255", "192.0.2.7", "fd12:3456::1", "2001:db8::1", "172.31.0.9"] {
            #expect(proxies.trusts(try Self.ip(inside)), "\(inside)")
        }
        for outside in ["11.0.0.1", "192.0.2.8", "fe80::1", "2001:db8::2", "172.32.0.1", "9.255.255.255"] {
            #expect(!proxies.trusts(try Self.ip(outside)), "\(outside)")
        }
        #expect(try Self.proxies("0.0.0.0/0").trusts(Self.ip("203.0.113.9")))
        #expect(try !Self.proxies("0.0.0.0/0").trusts(Self.ip("2001:db8::9")), "an IPv4 block holds no IPv6 address")
        #expect(try !Self.proxies("::/0").trusts(Self.ip("203.0.113.9")), "nor the reverse")
        #expect(try Self.proxies("").isEmpty && Self.proxies(" , ").isEmpty)
    }

    @Test func aV4MappedAddressIsItsIPv4Address() throws {
        // A dual-stack socket names an IPv4 peer ::ffff:a.b.c.d.
        let mapped = try Self.ip("::ffff:10.1.2.3")
        #expect(mapped == (try Self.ip("10.1.2.3")) && mapped.description == "10.1.2.3")
        #expect(try Self.proxies("10.0.0.0/8").trusts(mapped))
        #expect(try Self.proxies("::ffff:10.0.0.0/104").trusts(Self.ip("10.9.9.9")))
        #expect(try !Self.proxies("::ffff:10.0.0.0/104").trusts(Self.ip("11.0.0.1")))
        #expect(try Self.ip("2001:DB8:0:0::1").description == "2001:db8::1")
    }

    @Test(arguments: [
        "10.0.0.0/33", "fd00::/129", "10.0.0.1/8", "10.0.0.0/", "10.0.0.0/-1", "10.0.0.0/+8", "proxy.internal",
        "10.0.0", "::ffff:10.0.0.0/64", "[::1]", "10.0.0.1:80", "fd00::/8/8",
    ])
    func aBadEntryIsNamed(entry: String) {
        #expect(throws: TrustedProxies.BadEntry(entry: entry)) { try Self.proxies("127.0.0.1, \(entry), ::1") }
    }

    @Test func theSettingNamesTheVariableAndTheEntry() throws {
        #expect(try ReceiptdSettings(completing: [:]).trustedProxies.isEmpty)
        let settings = try ReceiptdSettings(completing: ["RECEIPTD_TRUSTED_PROXIES": "10.0.0.0/8,::1"])
        #expect(settings.trustedProxies.blocks.map(\.description) == ["10.0.0.0/8", "::1/128"])
        #expect {
            _ = try ReceiptdSettings(completing: ["RECEIPTD_TRUSTED_PROXIES": "10.0.0.0/8, lb.internal"])
        } throws: { error in
            let error = error as? ConfigurationError
            return error?.variable == "RECEIPTD_TRUSTED_PROXIES" && error?.problem.contains("\"lb.internal\"") == true
        }
    }

    @Test func aTrustedProxyNamesTheRightmostUntrustedHop() throws {
        let proxies = try Self.proxies("10.0.0.0/8")
        let proxy = try Self.ip("10.0.0.5")
        func client(_ lines: [String]) -> String { proxies.client(peer: proxy, forwardedFor: lines).description }
        #expect(client(["203.0.113.9"]) == "203.0.113.9")
        // What the client wrote itself is left of the address the first proxy saw.
        #expect(client(["198.51.100.1, 203.0.113.9"]) == "203.0.113.9")
        // A chain of trusted proxies is walked through.
        #expect(client(["198.51.100.1, 203.0.113.9, 10.0.0.3, 10.0.0.4"]) == "203.0.113.9")
        // Several header lines are one list, in order.
        #expect(client(["198.51.100.1, 203.0.113.9", "10.0.0.3"]) == "203.0.113.9")
        #expect(client(["2001:db8::7"]) == "2001:db8::7")
        #expect(client(["::ffff:203.0.113.9"]) == "203.0.113.9")
        // Ports and brackets, as some proxies write them.
        #expect(client(["203.0.113.9:4711"]) == "203.0.113.9")
        #expect(client(["[2001:db8::7]:4711"]) == "2001:db8::7")
        #expect(client(["[2001:db8::7]"]) == "2001:db8::7")
        // Nothing forwarded, or only trusted hops: the leftmost trusted address the request came through.
        #expect(client([]) == "10.0.0.5")
        #expect(client(["10.0.0.3, 10.0.0.4"]) == "10.0.0.3")
    }

    @Test func aMalformedHopEndsTheWalkAtTheLastGoodAddress() throws {
        let proxies = try Self.proxies("10.0.0.0/8")
        let proxy = try Self.ip("10.0.0.5")
        func client(_ lines: [String]) -> String { proxies.client(peer: proxy, forwardedFor: lines).description }
        #expect(client(["203.0.113.9, garbage"]) == "10.0.0.5", "never a hop left of one that cannot be read")
        #expect(client(["garbage, 10.0.0.3"]) == "10.0.0.3")
        #expect(client(["203.0.113.9, unknown, 10.0.0.3"]) == "10.0.0.3")
        #expect(client([""]) == "10.0.0.5")
        #expect(client(["203.0.113.9,"]) == "10.0.0.5")
        #expect(client(["2001:db8::7:4711"]) == "2001:db8::7:4711", "a whole IPv6 address, not one with a port")
        #expect(client(["1.2.3.4:99999"]) == "10.0.0.5")
        #expect(client(["[2001:db8::7"]) == "10.0.0.5")
        #expect(client(["[2001:db8::7]x"]) == "10.0.0.5")
        #expect(client(["203.0.113.9 203.0.113.10"]) == "10.0.0.5")
    }

    @Test func anUntrustedPeerIsItsOwnClientWhateverItSends() throws {
        let proxies = try Self.proxies("10.0.0.0/8")
        let peer = try Self.ip("203.0.113.66")
        #expect(proxies.client(peer: peer, forwardedFor: ["198.51.100.1"]) == peer)
        #expect(proxies.client(peer: peer, forwardedFor: [], forwarded: ["for=198.51.100.1"]) == peer)
        // Nor does a header naming a trusted proxy make it one.
        #expect(proxies.client(peer: peer, forwardedFor: ["10.0.0.5"]) == peer)
        #expect(
            TrustedProxies().client(peer: try Self.ip("10.0.0.5"), forwardedFor: ["198.51.100.1"]).description
                == "10.0.0.5"
        )
    }

    @Test func forwardedIsReadWhenThereIsNoXForwardedFor() throws {
        let proxies = try Self.proxies("10.0.0.0/8, fd00::/8")
        let proxy = try Self.ip("fd00::5")
        func client(_ lines: [String], xff: [String] = []) -> String {
            proxies.client(peer: proxy, forwardedFor: xff, forwarded: lines).description
        }
        #expect(client(["for=203.0.113.9"]) == "203.0.113.9")
        #expect(client([#"for=198.51.100.1;proto=https, For="[2001:db8::7]:4711";by=10.0.0.3"#]) == "2001:db8::7")
        #expect(client(["for=198.51.100.1", "for=203.0.113.9;proto=https, for=10.0.0.3"]) == "203.0.113.9")
        #expect(client([#"for="203.0.113.9:80""#]) == "203.0.113.9")
        #expect(client(["for=198.51.100.1, for=_hidden"]) == "fd00::5", "an obfuscated hop cannot be counted")
        #expect(client(["proto=https"]) == "fd00::5")
        // X-Forwarded-For, when there, is the one read: the other could be the client's own.
        #expect(client(["for=198.51.100.1"], xff: ["203.0.113.9"]) == "203.0.113.9")
    }

    @Test func forwardedRequestsCountAgainstTheirClientWhileInFlight() throws {
        let gate = HTTPEndpoint.ConnectionGate(limit: 64, perPeer: 8, trustedProxies: try Self.proxies("127.0.0.2"))
        // 32 connections from the proxy: only the total counts them.
        let proxied = (0..<32).map { _ in gate.admit(peer: "127.0.0.2") }
        #expect(proxied.allSatisfy { $0.admitted && $0.peer == .proxy(try! Self.ip("127.0.0.2")) })
        // Over them, one client gets 8 requests in flight; another client is not held back by it.
        let apple = try Self.ip("17.0.0.1")
        let starts = (0..<9).map { _ in gate.startRequest(for: apple) }
        #expect(starts == Array(repeating: true, count: 8) + [false])
        #expect(gate.startRequest(for: try Self.ip("17.0.0.2")))
        // The client's own connections share its count.
        #expect(!gate.admit(peer: "17.0.0.1").admitted)
        for _ in 0..<3 { gate.finishRequest(for: apple) }
        #expect(gate.admit(peer: "::ffff:17.0.0.1").admitted, "one peer, however its address is written")
        // An untrusted address is capped at 8 connections, as before.
        let direct = (0..<9).map { _ in gate.admit(peer: "127.0.0.3").admitted }
        #expect(direct == Array(repeating: true, count: 8) + [false])
        // The total still counts the proxy's connections: 32 + 2 + 9 are open, and 21 more reach the limit.
        let others = (0..<22).map { gate.admit(peer: "192.0.2.\($0)").admitted }
        #expect(others == Array(repeating: true, count: 21) + [false])
        for admission in proxied.prefix(2) { gate.release(admission.peer) }
        #expect(gate.admit(peer: "192.0.2.99").admitted)
    }

    @Test func everyConnectionOrRequestTurnedAwayIsHeardWithItsReason() throws {
        let heard = Mutex<[HTTPEndpoint.ConnectionGate.Refusal]>([])
        let gate = HTTPEndpoint.ConnectionGate(
            limit: 12,
            perPeer: 2,
            trustedProxies: try Self.proxies("127.0.0.2"),
            refused: { refusal in heard.withLock { $0.append(refusal) } }
        )
        // A third connection from one address is over its share.
        let direct = (0..<3).map { _ in gate.admit(peer: "192.0.2.1").admitted }
        #expect(direct == [true, true, false])
        // A third request in flight for one client behind the trusted proxy is over the client's share.
        #expect(gate.admit(peer: "127.0.0.2").admitted)
        let apple = try Self.ip("17.0.0.1")
        #expect((0..<3).map { _ in gate.startRequest(for: apple) } == [true, true, false])
        // 4 open; 8 more reach the limit of 12, the next is over it.
        let others = (0..<9).map { gate.admit(peer: "198.51.100.\($0)").admitted }
        #expect(others == Array(repeating: true, count: 8) + [false])
        #expect(heard.withLock { $0 } == [.peer, .client, .connections])
    }
}

import Foundation
import Logging

/// Reads and checks typed values from environment variables; an empty value counts as unset.
struct EnvironmentReader {
    let environment: [String: String]

    init(_ environment: [String: String]) { self.environment = environment }

    func string(_ name: String) -> String? {
        guard let value = environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// A whole number from `minimum` to `maximum` (a bound keeps the arithmetic done with it from overflowing).
    func integer(_ name: String, minimum: Int, maximum: Int) throws(ConfigurationError) -> Int? {
        guard let text = string(name) else { return nil }
        guard let value = Int(text.trimmingCharacters(in: .whitespaces)) else {
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not a whole number")
        }
        guard value >= minimum else {
            throw ConfigurationError(variable: name, problem: "must be at least \(minimum), got \(value)")
        }
        guard value <= maximum else {
            throw ConfigurationError(variable: name, problem: "must be at most \(maximum), got \(value)")
        }
        return value
    }

    /// A non-negative number of seconds (fractions allowed), at most `maximum`; `positive` also rejects zero.
    func seconds(_ name: String, positive: Bool = false, maximum: Duration) throws(ConfigurationError) -> Duration? {
        guard let text = string(name) else { return nil }
        guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not a number of seconds")
        }
        guard value >= 0 else { throw ConfigurationError(variable: name, problem: "must not be negative, got \(text)") }
        guard !positive || value > 0 else {
            throw ConfigurationError(variable: name, problem: "must be greater than 0")
        }
        try Self.check(name, value, text: text, maximum: maximum.seconds)
        return .seconds(value)
    }

    /// A duration: plain seconds, or a number with `s`, `m`, `h` or `d` (`30d`, `12h`), at most `maximum` seconds.
    func duration(_ name: String, maximum: Duration) throws(ConfigurationError) -> Duration? {
        guard let text = string(name)?.trimmingCharacters(in: .whitespaces) else { return nil }
        let units: [Character: Double] = ["s": 1, "m": 60, "h": 3600, "d": 86400]
        let unit = text.last.flatMap { units[$0] }
        let number = unit == nil ? text : String(text.dropLast())
        guard let value = Double(number), value.isFinite else {
            throw ConfigurationError(
                variable: name,
                problem: "\"\(text)\" is not a duration (seconds, or a number with s, m, h or d)"
            )
        }
        guard value > 0 else { throw ConfigurationError(variable: name, problem: "must be greater than 0") }
        try Self.check(name, value * (unit ?? 1), text: text, maximum: maximum.seconds)
        return .seconds(value * (unit ?? 1))
    }

    /// Refuses `seconds` over `maximum`, naming the bound in the largest whole unit.
    private static func check(
        _ name: String,
        _ seconds: Double,
        text: String,
        maximum: Double
    ) throws(ConfigurationError) {
        guard seconds > maximum else { return }
        let bound =
            [(86_400.0, "d"), (3600, "h"), (60, "m")].first {
                maximum >= $0.0 && maximum.truncatingRemainder(dividingBy: $0.0) == 0
            }
            .map { "\(Int(maximum / $0.0))\($0.1)" } ?? "\(Int(maximum))s"
        throw ConfigurationError(
            variable: name,
            problem: "must be at most \(bound) (\(Int(maximum)) seconds), got \(text)"
        )
    }

    /// An https URL, or an http one to a loopback host (a local stand-in or proxy): requests carry secrets
    /// (the shared secret, bearer tokens) or players' purchases, which plain http would send in clear. A refused
    /// URL is not repeated in the error: its query may hold a token.
    func url(_ name: String) throws(ConfigurationError) -> String? {
        guard let text = string(name) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host, !host.isEmpty
        else {
            throw ConfigurationError(variable: name, problem: "is not an http or https URL with a host")
        }
        guard scheme == "https" || Self.isLoopback(host) else {
            throw ConfigurationError(
                variable: name,
                problem: "plain http to \(host) would cross the network in clear; "
                    + "use https (http is allowed only to 127.0.0.0/8, ::1 and localhost)"
            )
        }
        return text
    }

    /// `localhost`, an IPv4 address in 127.0.0.0/8, or `::1` (with or without brackets). Names are not
    /// resolved: a name that merely resolves to loopback today is not trusted.
    static func isLoopback(_ host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name == "localhost" || name == "localhost." { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, name, &ipv4) == 1 { return UInt32(bigEndian: ipv4.s_addr) >> 24 == 127 }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, name, &ipv6) == 1 else { return false }
        return withUnsafeBytes(of: ipv6) { bytes in bytes.dropLast().allSatisfy { $0 == 0 } && bytes.last == 1 }
    }

    func logLevel(_ name: String) throws(ConfigurationError) -> Logger.Level? {
        guard let text = string(name) else { return nil }
        guard let level = Logger.Level(rawValue: text.lowercased()) else {
            let allowed = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not one of \(allowed)")
        }
        return level
    }

    func logFormat(_ name: String) throws(ConfigurationError) -> LogFormat? {
        guard let text = string(name) else { return nil }
        guard let format = LogFormat(rawValue: text.lowercased()) else {
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not one of json, text")
        }
        return format
    }

    /// `host:port` to listen on; `fallback` when unset, nil (off) when set to the empty string.
    func listenAddress(
        _ name: String,
        fallback: MetricsServer.Configuration?
    ) throws(ConfigurationError) -> MetricsServer.Configuration? {
        guard let text = environment[name] else { return fallback }
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else { return nil }
        guard let address = MetricsServer.Configuration(address: text) else {
            throw ConfigurationError(
                variable: name,
                problem: "\"\(text)\" is not host:port (for example 127.0.0.1:9464)"
            )
        }
        return address
    }

    /// A comma-separated list of IP addresses and CIDR blocks; none when unset.
    func trustedProxies(_ name: String) throws(ConfigurationError) -> TrustedProxies {
        guard let text = string(name) else { return TrustedProxies() }
        do {
            return try TrustedProxies(parsing: text)
        } catch {
            throw ConfigurationError(
                variable: name,
                problem: "\"\(error.entry)\" is not an IP address or a CIDR block (such as 10.0.0.7, 10.0.0.0/8 "
                    + "or fd00::/8; names are not resolved, and no bits may be set past the prefix)"
            )
        }
    }

    /// The contents of the file the variable names, without trailing line breaks. The error names
    /// the variable and the path, never the contents.
    func secretFile(_ name: String) throws(ConfigurationError) -> String? {
        guard let path = string(name) else { return nil }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(variable: name, problem: "cannot read \"\(path)\"")
        }
        guard var secret = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(variable: name, problem: "\"\(path)\" is not UTF-8 text")
        }
        while let last = secret.last, last == "\n" || last == "\r" || last == "\r\n" { secret.removeLast() }
        guard !secret.isEmpty else { throw ConfigurationError(variable: name, problem: "\"\(path)\" is empty") }
        return secret
    }

    /// One of an enum's raw values, given in any case.
    func choice<Choice: RawRepresentable & CaseIterable>(
        _ name: String,
        _: Choice.Type
    ) throws(ConfigurationError) -> Choice?
    where Choice.RawValue == String {
        guard let text = string(name) else { return nil }
        guard let value = Choice(rawValue: text.lowercased()) else {
            let allowed = Choice.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(variable: name, problem: "\"\(text)\" is not one of \(allowed)")
        }
        return value
    }

    /// An ISO-8601 time with a zone (`2026-11-20T10:00:00Z`, fractions allowed) or a date (`2026-11-20`, midnight UTC).
    func instant(_ name: String) throws(ConfigurationError) -> Date? {
        guard let text = string(name) else { return nil }
        let formats: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds], [.withFullDate],
        ]
        for options in formats {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        throw ConfigurationError(
            variable: name,
            problem: "\"\(text)\" is not an ISO-8601 time such as 2026-11-20T10:00:00Z"
        )
    }
}

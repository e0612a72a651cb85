import Foundation

/// Masks the password of a libpq connection string wherever it shows up in a message.
///
/// libpq quotes parts of a malformed connection string in its errors (`invalid percent-encoded token:
/// "p%zzw0rd"`), so a message about a bad `DATABASE_URL` can carry its password.
package enum SecretRedaction {
    /// `message` with every password of `connectionString`, raw or percent-decoded, replaced by `***`.
    package static func redact(_ message: String, connectionString: String) -> String {
        var redacted = message
        for secret in passwords(in: connectionString) where !secret.isEmpty {
            redacted = redacted.replacingOccurrences(of: secret, with: "***")
            if let decoded = secret.removingPercentEncoding, !decoded.isEmpty {
                redacted = redacted.replacingOccurrences(of: decoded, with: "***")
            }
        }
        return redacted
    }

    /// The message for a connection string libpq cannot parse. libpq quotes the part it stumbled on, which can be
    /// the password or a piece of it whatever it holds (a `?`, `/` or `#` in a URI's password makes libpq split the
    /// URI elsewhere than meant), so every quoted part is masked rather than looked for.
    package static func unparsable(_ libpqMessage: String) -> String {
        "cannot parse the connection string: "
            + maskingQuotes(libpqMessage).trimmingCharacters(in: .whitespacesAndNewlines)
            + " (in a URI, percent-encode @ : / ? # % in the user name and password)"
    }

    /// A failed connection's message for `connectionString`, whose password libpq read as `parsedPassword` (nil:
    /// none). The password is masked as by ``redact(_:connectionString:)``; and when libpq read another password
    /// than the URI spells (a `/` in it ended the host part early), pieces of it may be quoted as a host, port or
    /// database name, so every quoted part is masked.
    package static func connectionFailure(
        _ message: String,
        connectionString: String,
        parsedPassword: String?
    ) -> String {
        var redacted = redact(message, connectionString: connectionString)
        if let parsedPassword, !parsedPassword.isEmpty {
            redacted = redacted.replacingOccurrences(of: parsedPassword, with: "***")
        }
        if let written = writtenPassword(in: connectionString), written != parsedPassword,
            written.removingPercentEncoding != parsedPassword
        {
            redacted = maskingQuotes(redacted)
        }
        return redacted
    }

    /// `message` with each line's quoted part, from its first `"` to its last, replaced by `"***"`.
    static func maskingQuotes(_ message: String) -> String {
        message.split(separator: "\n", omittingEmptySubsequences: false).map { (line: Substring) -> String in
            guard let first = line.firstIndex(of: "\""), let last = line.lastIndex(of: "\"") else {
                return String(line)
            }
            let end: Substring.Index = last > first ? line.index(after: last) : line.endIndex
            let before: Substring = line.prefix(upTo: first)
            let after: Substring = line.suffix(from: end)
            return String(before) + "\"***\"" + String(after)
        }.joined(separator: "\n")
    }

    /// The password a URI's user info spells as a person reads it: up to the last `@`, whatever it holds.
    static func writtenPassword(in connectionString: String) -> String? {
        guard connectionString.hasPrefix("postgres"), let scheme = connectionString.range(of: "://") else { return nil }
        let rest = connectionString[scheme.upperBound...]
        guard let at = rest.lastIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") else { return nil }
        return String(rest[rest.index(after: colon)..<at])
    }

    /// The password in a URI's user info, in `password=` query parameters, and in `password=` keywords.
    static func passwords(in connectionString: String) -> [String] {
        var found: [String] = []
        if connectionString.hasPrefix("postgres"), let scheme = connectionString.range(of: "://") {
            let rest = connectionString[scheme.upperBound...]
            let authority = rest.prefix { $0 != "/" && $0 != "?" }
            if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                found.append(String(authority[authority.index(after: colon)..<at]))
            }
            // A password holding `/`, `?` or `#` ends past where the authority seems to end.
            if let written = writtenPassword(in: connectionString), !found.contains(written) { found.append(written) }
            if let query = rest.firstIndex(of: "?") {
                for pair in rest[rest.index(after: query)...].split(separator: "&") where pair.hasPrefix("password=") {
                    found.append(String(pair.dropFirst("password=".count)))
                }
            }
        } else {
            found += keywordPasswords(in: connectionString)
        }
        return found
    }

    /// Values of `password = value` or `password = 'quoted \' value'` in a key/value connection string.
    private static func keywordPasswords(in text: String) -> [String] {
        var found: [String] = []
        var rest = Substring(text)
        while let key = rest.range(of: "password") {
            rest = rest[key.upperBound...].drop { $0 == " " }
            guard rest.first == "=" else { continue }
            rest = rest.dropFirst().drop { $0 == " " }
            var value = ""
            if rest.first == "'" {
                rest = rest.dropFirst()
                var escaped = false
                while let character = rest.first {
                    rest = rest.dropFirst()
                    if escaped {
                        value.append(character)
                        escaped = false
                    } else if character == "\\" {
                        escaped = true
                    } else if character == "'" {
                        break
                    } else {
                        value.append(character)
                    }
                }
            } else {
                value = String(rest.prefix { !$0.isWhitespace })
                rest = rest.dropFirst(value.count)
            }
            found.append(value)
        }
        return found
    }
}

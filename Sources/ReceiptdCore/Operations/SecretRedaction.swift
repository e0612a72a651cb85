import Foundation

/// Masks the password of a libpq connection string wherever it shows up in a message.
///
/// libpq quotes parts of a malformed connection string in its errors (`invalid percent-encoded token:
/// "p%zzw0rd"`), so a message about a bad `DATABASE_URL` can carry its password.
public enum SecretRedaction {
    /// `message` with every password of `connectionString`, raw or percent-decoded, replaced by `***`.
    public static func redact(_ message: String, connectionString: String) -> String {
        var redacted = message
        for secret in passwords(in: connectionString) where !secret.isEmpty {
            redacted = redacted.replacingOccurrences(of: secret, with: "***")
            if let decoded = secret.removingPercentEncoding, !decoded.isEmpty {
                redacted = redacted.replacingOccurrences(of: decoded, with: "***")
            }
        }
        return redacted
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
                    if escaped { value.append(character); escaped = false }
                    else if character == "\\" { escaped = true }
                    else if character == "'" { break }
                    else { value.append(character) }
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

import Foundation
import HummingbirdBcrypt
import ReceiptdCore

/// `RECEIPTD_CONSOLE_USERS_FILE`: one user a line, `name:bcrypt-hash`, with `:viewer` for a read-only user; blank
/// lines and `#` comments are skipped. Names are read in NFC. htpasswd's `$2y$` hashes are read as `$2b$` (the same algorithm), so
/// `htpasswd -B` makes a line. Every error names the variable and the line, never a hash.
package enum ConsoleUsersFile {
    /// The variable every error names.
    package static let variable = ConsoleSettings.usersFileVariable

    /// The users of the file at `path`; an unreadable or malformed file, or one without users, is an error.
    package static func load(path: String) throws(ConfigurationError) -> [ConsoleUser] {
        let users = try parse(try read(path: path), path: path)
        guard !users.isEmpty else {
            throw ConfigurationError(
                variable: variable,
                problem: "\"\(path)\" holds no users (add one with `receiptd console add-user NAME`)"
            )
        }
        return users
    }

    /// The text of the file at `path`.
    package static func read(path: String) throws(ConfigurationError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError(variable: variable, problem: "cannot read \"\(path)\"")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ConfigurationError(variable: variable, problem: "\"\(path)\" is not UTF-8 text")
        }
        return text
    }

    /// The users `text` lists, in order (possibly none); `path` only goes into errors.
    package static func parse(_ text: String, path: String) throws(ConfigurationError) -> [ConsoleUser] {
        var users: [ConsoleUser] = []
        var lineOfName: [String: Int] = [:]
        // "\r\n" is one Character, and a line break like "\n".
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline)
        for (index, rawLine) in lines.enumerated() {
            let number = index + 1
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            func failure(_ problem: String) -> ConfigurationError {
                ConfigurationError(variable: variable, problem: "\"\(path)\" line \(number): \(problem)")
            }
            let fields = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard fields.count == 2 || fields.count == 3 else {
                throw failure("expected name:bcrypt-hash or name:bcrypt-hash:viewer")
            }
            if let problem = nameProblem(fields[0]) { throw failure(problem) }
            guard let hash = normalizedHash(fields[1]) else {
                throw failure("the password hash is not bcrypt ($2a$, $2b$ or $2y$, cost 04 to 31, 53 characters)")
            }
            var role = ConsoleRole.operator
            if fields.count == 3 {
                guard fields[2] == ConsoleRole.viewer.rawValue else {
                    throw failure("the third field may only be viewer")
                }
                role = .viewer
            }
            // Stored in NFC: two spellings of one name are one user, and the second is a duplicate.
            let name = ConsoleUser.normalized(fields[0])
            if let first = lineOfName[name] {
                throw failure("the name \"\(fields[0])\" is already on line \(first)")
            }
            lineOfName[name] = number
            users.append(ConsoleUser(name: name, passwordHash: hash, role: role))
        }
        return users
    }

    /// Why `name` cannot be a user's name, or `nil` when it can: it must not be empty, nor hold `:`, whitespace
    /// or control characters (a name is logged and recorded as the actor of actions).
    package static func nameProblem(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.contains(":") { return "the name contains \":\"" }
        let bad = name.unicodeScalars.contains {
            $0.properties.isWhitespace || $0.value < 0x20 || (0x7F...0x9F).contains($0.value)
        }
        return bad ? "the name contains whitespace or a control character" : nil
    }

    /// `hash` as `Bcrypt.verify` takes it (`$2y$` becomes `$2b$`), or `nil` when it is not a bcrypt hash:
    /// `$2a$`, `$2b$` or `$2y$`, a two-digit cost from 04 to 31, `$`, then 53 characters of bcrypt's base64.
    package static func normalizedHash(_ hash: String) -> String? {
        let bytes = Array(hash.utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]), bytes[3] == UInt8(ascii: "$"),
            bytes[6] == UInt8(ascii: "$")
        else { return nil }
        guard let cost = Int(String(decoding: bytes[4...5], as: UTF8.self)), (4...31).contains(cost),
            bytes[4...5].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { return nil }
        guard bytes[7...].allSatisfy(isBcryptBase64) else { return nil }
        return bytes[2] == UInt8(ascii: "y") ? "$2b$" + hash.dropFirst(4) : hash
    }

    /// The cost (log2 of the rounds) of a hash `normalizedHash` accepted.
    package static func cost(of hash: String) -> Int {
        Int(hash.dropFirst(4).prefix(2)) ?? 12
    }

    /// A new `$2b$` hash of `password` at `cost` (12 for `add-user`: a few hundred milliseconds a check).
    package static func hash(password: String, cost: UInt8 = 12) -> String {
        Bcrypt.hash(password, cost: cost)
    }

    /// The line `add-user` appends for `user` (without the line break).
    package static func line(for user: ConsoleUser) -> String {
        user.role == .viewer ? "\(user.name):\(user.passwordHash):viewer" : "\(user.name):\(user.passwordHash)"
    }

    private static func isBcryptBase64(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "."), UInt8(ascii: "/"): true
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"): true
        case UInt8(ascii: "0")...UInt8(ascii: "9"): true
        default: false
        }
    }
}

import Foundation
import Logging
import ReceiptdCore

extension ConsoleSettings {
    /// The variable naming where the console listens.
    package static let addressVariable = "RECEIPTD_CONSOLE_ADDR"
    /// The variable naming the users file.
    package static let usersFileVariable = "RECEIPTD_CONSOLE_USERS_FILE"
    /// The variable that drops `Secure` from the session cookie.
    package static let insecureCookiesVariable = "RECEIPTD_CONSOLE_INSECURE_COOKIES"

    /// Reads `RECEIPTD_CONSOLE_ADDR`, `RECEIPTD_CONSOLE_USERS_FILE` (required),
    /// `RECEIPTD_CONSOLE_INSECURE_COOKIES`, `RECEIPTD_LOG_LEVEL` and `RECEIPTD_LOG_FORMAT`; an empty value counts as
    /// unset. The error names the variable at fault.
    package init(environment: [String: String]) throws(ConfigurationError) {
        self.init()
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
            return text
        }
        let address = value(Self.addressVariable) ?? Self.defaultAddress
        // The same `host:port` / `[ipv6]:port` / `:port` grammar as RECEIPTD_METRICS_ADDR.
        guard let parsed = MetricsServer.Configuration(address: address) else {
            throw ConfigurationError(
                variable: Self.addressVariable,
                problem: "\"\(address)\" is not host:port (for example \(Self.defaultAddress) or [::1]:9470)"
            )
        }
        (host, port) = (parsed.host, parsed.port)
        guard let usersFile = value(Self.usersFileVariable) else {
            throw ConfigurationError(
                variable: Self.usersFileVariable,
                problem: "is required: the file of console users, one name:bcrypt-hash[:viewer] a line "
                    + "(add one with `receiptd console add-user NAME`)"
            )
        }
        self.usersFile = usersFile
        if let text = value(Self.insecureCookiesVariable) {
            switch text.lowercased() {
            case "1", "true": insecureCookies = true
            case "0", "false": insecureCookies = false
            default:
                throw ConfigurationError(
                    variable: Self.insecureCookiesVariable,
                    problem: "\"\(text)\" is not one of 1, 0, true, false"
                )
            }
        }
        if let text = value("RECEIPTD_LOG_LEVEL") {
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                let allowed = Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")
                throw ConfigurationError(
                    variable: "RECEIPTD_LOG_LEVEL",
                    problem: "\"\(text)\" is not one of \(allowed)"
                )
            }
            logLevel = level
        }
        if let text = value("RECEIPTD_LOG_FORMAT") {
            guard let format = LogFormat(rawValue: text.lowercased()) else {
                throw ConfigurationError(
                    variable: "RECEIPTD_LOG_FORMAT",
                    problem: "\"\(text)\" is not one of json, text"
                )
            }
            logFormat = format
        }
    }
}

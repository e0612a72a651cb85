import Foundation
import Logging
import ReceiptdCore

/// What `receiptd console` reads from its environment. Every time setting is a `Duration`, its default here.
package struct ConsoleSettings: Sendable, Equatable {
    /// The default of `RECEIPTD_CONSOLE_ADDR`: loopback only.
    package static let defaultAddress = "127.0.0.1:9470"

    /// `RECEIPTD_CONSOLE_ADDR`'s host.
    package var host = "127.0.0.1"
    /// `RECEIPTD_CONSOLE_ADDR`'s port (0 picks a free one, for tests).
    package var port = 9470
    /// `RECEIPTD_CONSOLE_USERS_FILE`: `name:bcrypt-hash[:viewer]` lines.
    package var usersFile = ""
    /// `RECEIPTD_CONSOLE_INSECURE_COOKIES=1`: the session cookie without `Secure`, for plain-http development.
    package var insecureCookies = false
    /// How long a session lasts after sign-in.
    package var sessionLifetime: Duration = .seconds(8 * 3600)
    /// Failed sign-ins for one name within `signInWindow` before the next answer 429.
    package var signInFailuresAllowed = 5
    /// The window failed sign-ins are counted over, and how long the 429s last.
    package var signInWindow: Duration = .seconds(60)
    /// `RECEIPTD_LOG_LEVEL`, as for the daemon.
    package var logLevel: Logger.Level = .info
    /// `RECEIPTD_LOG_FORMAT`, as for the daemon; `nil` picks text at a terminal and JSON otherwise.
    package var logFormat: LogFormat?

    /// `host:port` as it is written in a URL: an IPv6 address in brackets.
    package var address: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// The defaults.
    package init() {}
}

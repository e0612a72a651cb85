import Crypto
import Foundation

/// A signed-in browser: who, with what role, the token its forms must carry, and when it ends.
package struct ConsoleSession: Sendable, Equatable {
    /// The cookie's value: random, never logged.
    package var token: String
    /// The signed-in name, recorded as the actor of every action.
    package var user: String
    /// Whether the user may act.
    package var role: ConsoleRole
    /// The CSRF token every `POST` of this session carries in the form field `csrf`.
    package var csrfToken: String
    /// When the session ends on its own (8 hours after sign-in by default).
    package var expiresAt: Date

    /// A session with the given values.
    package init(token: String, user: String, role: ConsoleRole, csrfToken: String, expiresAt: Date) {
        self.token = token
        self.user = user
        self.role = role
        self.csrfToken = csrfToken
        self.expiresAt = expiresAt
    }

    /// The check that makes a flash message (`?flash=`, an action's result) this session's own: an HMAC of the
    /// message keyed by the session's CSRF token. A link made elsewhere cannot put words on the console's pages.
    package func flashCheck(_ message: String) -> String {
        let code = HMAC<SHA256>.authenticationCode(
            for: Data(message.utf8),
            using: SymmetricKey(data: Data(csrfToken.utf8))
        )
        return code.prefix(16).map { String(format: "%02x", $0) }.joined()
    }

    /// The flash message of a page's query (`flash`), when its `check` is this session's; `nil` otherwise.
    package func flash(in query: ConsoleForm) -> String? {
        guard let message = query["flash"], let check = query["check"],
            ConsoleAuthentication.constantTimeEquals(check, flashCheck(message))
        else { return nil }
        return message
    }

    /// `location` (an action's answer, `…?…&flash=…`) with the check of its flash message appended.
    package func checkingFlash(of location: String) -> String {
        guard let query = location.split(separator: "?", maxSplits: 1).dropFirst().first,
            let message = ConsoleForm(encoded: String(query))["flash"]
        else { return location }
        return location + "&check=" + flashCheck(message)
    }
}

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
}

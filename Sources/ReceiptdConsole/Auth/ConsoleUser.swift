/// One line of `RECEIPTD_CONSOLE_USERS_FILE`: `name:bcrypt-hash`, with `:viewer` for a read-only user.
package struct ConsoleUser: Sendable, Equatable {
    /// The sign-in name.
    package var name: String
    /// The bcrypt hash (`$2b$…`; htpasswd's `$2y$` is read as `$2b$`).
    package var passwordHash: String
    /// Operator, or viewer.
    package var role: ConsoleRole

    /// A user with the given values.
    package init(name: String, passwordHash: String, role: ConsoleRole) {
        self.name = name
        self.passwordHash = passwordHash
        self.role = role
    }
}

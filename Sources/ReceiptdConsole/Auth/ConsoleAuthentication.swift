/// Sign-in, the sessions, CSRF tokens and the failed sign-in limit. (Stub of the shared base: the
/// authentication part of #23 replaces it.)
package actor ConsoleAuthentication {
    let settings: ConsoleSettings
    let users: [ConsoleUser]

    /// Checks sign-ins against `users`.
    package init(settings: ConsoleSettings, users: [ConsoleUser]) {
        self.settings = settings
        self.users = users
    }
}

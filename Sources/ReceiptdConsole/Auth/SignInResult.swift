/// How a sign-in ended.
package enum SignInResult: Sendable, Equatable {
    /// The password matched: the new session.
    case signedIn(ConsoleSession)
    /// Unknown name or wrong password (the answer does not say which).
    case refused
    /// Too many failed sign-ins for the name lately: the password was not checked.
    case throttled
}

import Foundation

/// The signed-in sessions and their CSRF tokens, in this process's memory: a restart signs everyone out.
/// Sign-in with the users file and the failed sign-in limit: ConsoleAuthentication+SignIn.swift.
package actor ConsoleAuthentication {
    /// The cookie that carries the session token.
    package static let cookieName = "receiptd_console"

    let settings: ConsoleSettings
    let users: [ConsoleUser]
    let now: @Sendable () -> Date
    private var sessions: [String: ConsoleSession] = [:]
    /// Failed sign-ins per name (ConsoleAuthentication+SignIn.swift).
    var throttle: SignInThrottle
    /// What an unknown name's password is checked against, at the users' usual cost: it takes as long as a
    /// wrong password, so names cannot be probed.
    let dummyHash: String

    /// Checks sign-ins against `users`; `now` is the clock sessions expire by (tests move it).
    package init(settings: ConsoleSettings, users: [ConsoleUser], now: @escaping @Sendable () -> Date = Date.init) {
        self.settings = settings
        self.users = users
        self.now = now
        throttle = SignInThrottle(failuresAllowed: settings.signInFailuresAllowed, window: settings.signInWindow)
        dummyHash = Self.makeDummyHash(costLike: users)
    }

    /// A new session for `user`, ending `settings.sessionLifetime` from now. Sign-in calls it once the password
    /// matched; tests and the benchmark call it to skip bcrypt.
    package func startSession(for user: ConsoleUser) -> ConsoleSession {
        dropExpired()
        let session = ConsoleSession(
            token: Self.randomToken(),
            user: user.name,
            role: user.role,
            csrfToken: Self.randomToken(),
            expiresAt: now().addingTimeInterval(Self.seconds(settings.sessionLifetime))
        )
        sessions[session.token] = session
        return session
    }

    /// The live session of `token`; `nil` for an unknown or expired one (which is forgotten).
    package func session(forToken token: String) -> ConsoleSession? {
        guard let session = sessions[token] else { return nil }
        guard session.expiresAt > now() else {
            sessions[token] = nil
            return nil
        }
        return session
    }

    /// Ends the session of `token` (sign-out): its cookie and CSRF token are worthless from now on.
    package func endSession(token: String) {
        sessions[token] = nil
    }

    private func dropExpired() {
        let now = now()
        sessions = sessions.filter { $0.value.expiresAt > now }
    }

    /// 32 random bytes from the system's generator, as 64 hex digits (cookie- and form-safe).
    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in String(format: "%02x", UInt8.random(in: .min ... .max, using: &generator)) }
            .joined()
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        let (seconds, attoseconds) = duration.components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }

    /// Compares in time independent of where the texts differ, so a token cannot be guessed byte by byte.
    package static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let a = Array(a.utf8)
        let b = Array(b.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in a.indices { difference |= a[index] ^ b[index] }
        return difference == 0
    }
}

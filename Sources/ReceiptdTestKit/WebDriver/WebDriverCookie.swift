/// A cookie as WebDriver's cookie API reports it: unlike `document.cookie`, it sees `HttpOnly` cookies, with their
/// flags.
package struct WebDriverCookie: Decodable, Sendable, Equatable {
    /// The cookie's name.
    package var name: String
    /// Its value.
    package var value: String
    /// Its path.
    package var path: String?
    /// Its domain.
    package var domain: String?
    /// `Secure`.
    package var secure: Bool?
    /// `HttpOnly`.
    package var httpOnly: Bool?
    /// `Strict`, `Lax` or `None`.
    package var sameSite: String?
    /// When it expires, in seconds since 1970; absent for a session cookie.
    package var expiry: Int?
}

import Hummingbird

extension ConsoleServer {
    /// `GET`/`POST /signin`, `POST /signout`, and the middleware that admits every later route only with a
    /// valid session, and a `POST` only with its CSRF token and the operator role. (Stub of the shared base.)
    func addAuthentication(to router: Router<ConsoleRequestContext>) {}
}

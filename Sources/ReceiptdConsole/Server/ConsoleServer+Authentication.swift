import Foundation
import Hummingbird
import Logging
import ReceiptdCore

extension ConsoleServer {
    /// `GET`/`POST /signin` and `POST /signout`. The gate (ConsoleGate) lets `/signin` through without a session
    /// and has checked a sign-out's session and CSRF token before it gets here.
    func addAuthentication(to router: Router<ConsoleRequestContext>) {
        router.get("/signin") { _, context -> Response in
            guard context.session == nil else { return ConsoleLayout.redirect(to: "/") }
            return Self.signInPage()
        }
        router.post("/signin") { request, context -> Response in
            var request = request
            let fields = ConsoleForm(body: try await request.collectBody(upTo: context.maxUploadSize))
            return await signIn(name: fields["name"] ?? "", password: fields["password"] ?? "", replacing: context)
        }
        router.post(RouterPath(stringLiteral: ConsoleGate.signOutPath)) { _, context -> Response in
            guard let session = context.session else { return ConsoleLayout.redirect(to: "/signin") }
            await authentication.endSession(token: session.token)
            logger.notice("console sign-out", metadata: ["user": "\(Self.loggable(session.user))"])
            var response = ConsoleLayout.redirect(to: "/signin")
            response.headers[.setCookie] = sessionCookie(value: "", maxAge: .zero)
            return response
        }
    }

    /// Checks the password; a success ends the browser's previous session, if any, and sets the new cookie.
    private func signIn(name: String, password: String, replacing context: ConsoleRequestContext) async -> Response {
        let metadata: Logger.Metadata = ["user": "\(Self.loggable(name))"]
        switch await authentication.signIn(name: name, password: password) {
        case .signedIn(let session):
            if let previous = context.session { await authentication.endSession(token: previous.token) }
            logger.notice("console sign-in", metadata: metadata.merging(["role": "\(session.role)"]) { $1 })
            var response = ConsoleLayout.redirect(to: "/")
            response.headers[.setCookie] = sessionCookie(value: session.token, maxAge: settings.sessionLifetime)
            return response
        case .refused:
            logger.notice("console sign-in refused: wrong name or password", metadata: metadata)
            return Self.signInPage(name: name, error: "Wrong name or password.", status: .unauthorized)
        case .throttled:
            logger.notice("console sign-in refused: too many failures for the name", metadata: metadata)
            var response = Self.signInPage(
                name: name,
                error: "Too many failed sign-ins for this name: wait a minute, then try again.",
                status: .tooManyRequests
            )
            response.headers[.retryAfter] = "\(settings.signInWindow.components.seconds)"
            return response
        }
    }

    /// `receiptd_console=…; Path=/; HttpOnly; SameSite=Strict; Secure; Max-Age=…` (no `Secure` with
    /// `RECEIPTD_CONSOLE_INSECURE_COOKIES`): scripts cannot read it, other sites' requests do not carry it.
    func sessionCookie(value: String, maxAge: Duration) -> String {
        let secure = settings.insecureCookies ? "" : "; Secure"
        return "\(ConsoleAuthentication.cookieName)=\(value); Path=/; HttpOnly; SameSite=Strict\(secure); "
            + "Max-Age=\(maxAge.components.seconds)"
    }

    /// The sign-in page as an answer with `status`.
    static func signInPage(name: String = "", error: String? = nil, status: HTTPResponse.Status = .ok) -> Response {
        let form = signInForm(name: name, error: error)
        return ConsoleLayout.response(
            ConsolePage(title: "Sign in", section: .overview, body: form, status: status),
            session: nil
        )
    }

    /// The sign-in form, with `error` above it; `name` is filled in again after a failure.
    static func signInForm(name: String, error: String?) -> HTML {
        let message: HTML = error.map { "<p id=\"signin-error\" class=\"error\" role=\"alert\">\($0)</p>" } ?? .empty
        return """
            <form id="signin-form" class="signin" method="post" action="/signin">
            \(message)
            <label for="name">Name</label>
            <input id="name" name="name" type="text" value="\(name)" autocomplete="username" autocapitalize="none" spellcheck="false" required autofocus>
            <label for="password">Password</label>
            <input id="password" name="password" type="password" autocomplete="current-password" required>
            <button id="signin" type="submit">Sign in</button>
            </form>
            """
    }

    /// A name as it may go into the log: control characters made visible, at most 64 characters (whatever a
    /// stranger typed into the form).
    static func loggable(_ name: String) -> String {
        let safe = name.terminalSafe
        return safe.count > 64 ? String(safe.prefix(64)) + "…" : safe
    }
}

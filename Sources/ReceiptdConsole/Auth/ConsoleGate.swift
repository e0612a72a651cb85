import Hummingbird

/// Admits a request to the console's pages only with a live session, and a `POST` only with the session's CSRF
/// token in the form field `csrf` and, but for signing out, the operator role. Anything else changes nothing:
/// a `GET` without a session is sent to the sign-in page, a `POST` answers 403.
package struct ConsoleGate: RouterMiddleware {
    /// Paths served without a session: the sign-in page and the assets.
    package static let openPaths: Set<String> = ["/signin", ConsoleAssets.stylesheetPath, ConsoleAssets.scriptPath]
    /// The one `POST` a viewer may make.
    package static let signOutPath = "/signout"

    let authentication: ConsoleAuthentication

    /// A gate over `authentication`'s sessions.
    package init(authentication: ConsoleAuthentication) {
        self.authentication = authentication
    }

    package func handle(
        _ request: Request,
        context: ConsoleRequestContext,
        next: (Request, ConsoleRequestContext) async throws -> Response
    ) async throws -> Response {
        var context = context
        if let token = request.cookies[ConsoleAuthentication.cookieName]?.value {
            context.session = await authentication.session(forToken: token)
        }
        if Self.openPaths.contains(request.uri.path) {
            return try await next(request, context)
        }
        guard let session = context.session else {
            if request.method == .get || request.method == .head {
                return ConsoleLayout.redirect(to: "/signin")
            }
            throw HTTPError(.forbidden, message: "Sign in first.")
        }
        guard request.method == .post else {
            return try await next(request, context)
        }
        var request = request
        let body = try await request.collectBody(upTo: context.maxUploadSize)
        let fields = ConsoleForm(body: body)
        guard let token = fields["csrf"], ConsoleAuthentication.constantTimeEquals(token, session.csrfToken) else {
            throw HTTPError(.forbidden, message: "The form's token is missing or stale: reload the page and try again.")
        }
        guard session.role == .operator || request.uri.path == Self.signOutPath else {
            throw HTTPError(.forbidden, message: "Viewers cannot change anything.")
        }
        return try await next(request, context)
    }
}

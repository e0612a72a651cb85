import HTTPTypes
import Hummingbird

/// Turns what a handler or the gate throws into a page, and puts headers on every answer: a Content-Security-Policy without `unsafe-inline` (scripts and styles come from the
/// console's own files only), no framing, no sniffing, no referrer.
package struct ConsoleSecurityHeaders: RouterMiddleware {
    /// The policy: the console's own origin for scripts, styles, images and fetches; forms post to it only.
    package static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
        + "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

    private static let frameOptions = HTTPField.Name("X-Frame-Options")!
    private static let referrerPolicy = HTTPField.Name("Referrer-Policy")!

    package init() {}

    package func handle(
        _ request: Request,
        context: ConsoleRequestContext,
        next: (Request, ConsoleRequestContext) async throws -> Response
    ) async throws -> Response {
        var response: Response
        do {
            response = try await next(request, context)
        } catch let error as HTTPError {
            // The gate's refusals and the router's misses, as a page of the console rather than JSON.
            response = ConsoleLayout.response(ErrorPage.refusal(error.status, message: error.body), session: nil)
        } catch let error as any HTTPResponseError {
            response = try error.response(from: request, context: context)
        } catch {
            // Whatever escaped a handler: the log has its type, the browser a page without details.
            context.logger.error("console request failed", metadata: ["error.type": "\(type(of: error))"])
            response = ConsoleLayout.response(ErrorPage.internalError(), session: nil)
        }
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.frameOptions] = "DENY"
        response.headers[Self.referrerPolicy] = "no-referrer"
        return response
    }
}

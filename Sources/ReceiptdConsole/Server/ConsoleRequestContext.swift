import Hummingbird

/// Hummingbird's per-request context, with the signed-in session the authentication middleware found.
package struct ConsoleRequestContext: RequestContext {
    /// Hummingbird's own storage.
    package var coreContext: CoreRequestContextStorage
    /// The session of the request's cookie, when it is valid; `nil` before sign-in.
    package var session: ConsoleSession?

    /// A context without a session.
    package init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        session = nil
    }

    /// Forms are small: a request body above this is refused before it is read.
    package var maxUploadSize: Int { 64 * 1024 }
}

import Hummingbird

/// The pages that say something went wrong, without any detail of it (no SQL, no connection string, no trace).
package enum ErrorPage {
    /// 404: nothing is named `id`.
    package static func notFound(_ what: String, flash: String? = nil) -> ConsolePage {
        ConsolePage(
            title: "Not found",
            section: .search,
            body: "<p id=\"not-found\">\(what)</p>",
            status: .notFound,
            flash: flash
        )
    }

    /// 503: the database did not answer (or failed); the page says so and nothing more.
    package static func databaseUnavailable() -> ConsolePage {
        ConsolePage(
            title: "Unavailable",
            section: .overview,
            body: "<p id=\"unavailable\">Unavailable: the database is not answering. Try again in a moment.</p>",
            status: .serviceUnavailable
        )
    }

    /// A refusal with `status` (403 from the gate, 404 for a path with no page), with its message and a way back.
    package static func refusal(_ status: HTTPResponse.Status, message: String?) -> ConsolePage {
        ConsolePage(
            title: status.reasonPhrase,
            section: .overview,
            body: """
                <p id="refused">\(message ?? status.reasonPhrase)</p>
                <p><a href="/">Back to the console</a></p>
                """,
            status: status
        )
    }

    /// 500: anything else; the server's log has the error.
    package static func internalError() -> ConsolePage {
        ConsolePage(
            title: "Error",
            section: .overview,
            body: "<p id=\"internal-error\">Something went wrong; the console's log says what.</p>",
            status: .internalServerError
        )
    }
}

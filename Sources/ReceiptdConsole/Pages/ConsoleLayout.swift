import Hummingbird

/// The frame around every page: header with navigation, the search box, the signed-in user and sign-out.
///
/// Element ids the browser tests rely on: `q` (search box), `search` (its form), `signout` (the sign-out
/// button), `flash` (an action's result), `user` (the signed-in name).
package enum ConsoleLayout {
    /// The page as a complete HTML answer for `session` (`nil` on the sign-in page: no header links).
    package static func response(_ page: ConsolePage, session: ConsoleSession?, query: String = "") -> Response {
        html(document(page, session: session, query: query), status: page.status)
    }

    /// `markup` as a `text/html` answer that no cache keeps.
    package static func html(_ markup: HTML, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "text/html; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: markup.rendered)))
    }

    /// A `303 See Other` to `location`: what every successful form answers (post, redirect, get).
    package static func redirect(to location: String) -> Response {
        var headers = HTTPFields()
        headers[.location] = location
        headers[.cacheControl] = "no-store"
        return Response(status: .seeOther, headers: headers)
    }

    /// The whole document.
    package static func document(_ page: ConsolePage, session: ConsoleSession?, query: String = "") -> HTML {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(page.title) · receiptd console</title>
        <link rel="stylesheet" href="\(ConsoleAssets.stylesheetPath)">
        <script src="\(ConsoleAssets.scriptPath)" defer></script>
        </head>
        <body>
        \(header(page, session: session, query: query))
        <main>
        <h1>\(page.title)</h1>
        \(flash(page.flash))
        \(page.body)
        </main>
        </body>
        </html>
        """
    }

    private static func header(_ page: ConsolePage, session: ConsoleSession?, query: String) -> HTML {
        guard let session else { return "<header><span class=\"brand\">receiptd console</span></header>" }
        let links = ConsoleSection.navigation.map { section -> HTML in
            let current: HTML = section == page.section ? " aria-current=\"page\"" : ""
            return "<a href=\"\(section.path)\"\(current)>\(section.title)</a>"
        }
        let role: HTML = session.role == .viewer ? " <span class=\"badge\">viewer</span>" : ""
        return """
            <header>
            <a class="brand" href="/">receiptd console</a>
            <nav>\(links)</nav>
            <form id="search" method="get" action="/search" role="search">
            <input id="q" name="q" type="search" value="\(query)" placeholder="user, order, transaction id or purchase token" aria-label="Search">
            <button type="submit">Search</button>
            </form>
            <span id="user">\(session.user)</span>\(role)
            <form method="post" action="/signout">\(csrfField(session))<button id="signout" type="submit">Sign out</button></form>
            </header>
            """
    }

    /// The hidden field that every form of a signed-in page carries.
    package static func csrfField(_ session: ConsoleSession) -> HTML {
        "<input type=\"hidden\" name=\"csrf\" value=\"\(session.csrfToken)\">"
    }

    private static func flash(_ message: String?) -> HTML {
        guard let message, !message.isEmpty else { return .empty }
        return "<p id=\"flash\" class=\"flash\" role=\"status\">\(message)</p>"
    }
}

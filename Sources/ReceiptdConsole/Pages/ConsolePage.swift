import Hummingbird

/// One page of the console before the layout wraps it: its title, section and content.
package struct ConsolePage: Sendable {
    /// The `<title>` and the page's heading.
    package var title: String
    /// The header's current section.
    package var section: ConsoleSection
    /// The content, below the heading.
    package var body: HTML
    /// The answer's status (a missing order is 404, a refused action's page 409).
    package var status: HTTPResponse.Status
    /// A one-line message at the top, e.g. the result of the action that led here (`?flash=`).
    package var flash: String?

    /// A page with the given values.
    package init(
        title: String,
        section: ConsoleSection,
        body: HTML,
        status: HTTPResponse.Status = .ok,
        flash: String? = nil
    ) {
        self.title = title
        self.section = section
        self.body = body
        self.status = status
        self.flash = flash
    }
}

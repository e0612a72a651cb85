/// A WebDriver command that failed: WebDriver's error code (`no such element`, `stale element reference`, …) and
/// message, or a transport failure of the client itself.
package struct WebDriverError: Error, CustomStringConvertible, Sendable {
    /// WebDriver's error code, or `client` for a failure before any answer.
    package var error: String
    /// WebDriver's message.
    package var message: String
    /// The command, as `METHOD path`.
    package var command: String

    /// An error with the given values.
    package init(error: String, message: String, command: String) {
        self.error = error
        self.message = message
        self.command = command
    }

    /// Whether no element matched the selector.
    package var isNoSuchElement: Bool { error == "no such element" }

    /// Whether the element belonged to a page the browser has left. While the next page loads, chromedriver may
    /// say so as an `unknown error` that the node no longer belongs to the document.
    package var isStaleElement: Bool {
        error == "stale element reference"
            || (error == "unknown error" && message.contains("does not belong to the document"))
    }

    package var description: String { "WebDriver \(command): \(error): \(message)" }
}

import Foundation

/// One headless chromium, driven over WebDriver: navigate, find elements, click and type, read the page, its
/// cookies and a screenshot. ``ChromeDriver/withSession(_:)`` makes one and deletes it (closing the browser).
package struct WebDriverSession: Sendable {
    /// WebDriver's session id.
    package let id: String
    let connection: WebDriverConnection

    private var path: String { "/session/\(id)" }

    init(id: String, connection: WebDriverConnection) {
        self.id = id
        self.connection = connection
    }

    /// Opens `url` and waits for its load event.
    package func navigate(to url: String) async throws {
        try await connection.perform(.POST, "\(path)/url", body: ["url": url])
    }

    /// The address of the page shown now (after any redirects).
    package func currentURL() async throws -> String {
        try await connection.send(.GET, "\(path)/url")
    }

    /// The page's `<title>`.
    package func title() async throws -> String {
        try await connection.send(.GET, "\(path)/title")
    }

    /// The page's markup as the browser holds it now.
    package func pageSource() async throws -> String {
        try await connection.send(.GET, "\(path)/source")
    }

    /// The first element matching the CSS `selector`; throws `no such element` when none does (no waiting).
    package func findElement(css selector: String) async throws -> WebDriverElement {
        let found: [String: String] = try await connection.send(
            .POST,
            "\(path)/element",
            body: ["using": "css selector", "value": selector]
        )
        return try WebDriverElement(reference: found, connection: connection, sessionPath: path)
    }

    /// Every element matching the CSS `selector`, in document order; empty when none does.
    package func findElements(css selector: String) async throws -> [WebDriverElement] {
        let found: [[String: String]] = try await connection.send(
            .POST,
            "\(path)/elements",
            body: ["using": "css selector", "value": selector]
        )
        return try found.map { try WebDriverElement(reference: $0, connection: connection, sessionPath: path) }
    }

    /// Waits up to `timeout` for an element matching `selector` to appear (after a click that loads a page, say).
    package func waitForElement(
        css selector: String,
        timeout: Duration = .seconds(10)
    ) async throws
        -> WebDriverElement
    {
        let deadline = ContinuousClock.now + timeout
        while true {
            do {
                return try await findElement(css: selector)
            } catch let error as WebDriverError where error.isNoSuchElement && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Waits up to `timeout` for the current address to satisfy `condition`, and returns it; throws a
    /// ``WebDriverError`` naming the last address when it does not.
    @discardableResult
    package func waitForURL(
        timeout: Duration = .seconds(10),
        _ condition: (URLComponents) -> Bool
    ) async throws -> String {
        let deadline = ContinuousClock.now + timeout
        var url = try await currentURL()
        while !(URLComponents(string: url).map(condition) ?? false) {
            guard ContinuousClock.now < deadline else {
                throw WebDriverError(error: "timeout", message: "still at \(url) after \(timeout)", command: "url")
            }
            try await Task.sleep(for: .milliseconds(100))
            url = try await currentURL()
        }
        return url
    }

    /// Runs `script` (a function body; `arguments[i]` are its `arguments[i]`) in the page and decodes what it
    /// returns as `Value` (`String?` for a script that returns nothing). WebDriver runs it even where the page's
    /// Content-Security-Policy forbids inline scripts.
    package func executeScript<Value: Decodable>(
        _ script: String,
        arguments: [String] = [],
        as type: Value.Type = Value.self
    ) async throws -> Value {
        try await connection.send(.POST, "\(path)/execute/sync", body: ScriptCommand(script: script, args: arguments))
    }

    /// The text of the open `alert`/`confirm`/`prompt` dialog, `nil` when none is open.
    package func alertText() async throws -> String? {
        do {
            return try await connection.send(.GET, "\(path)/alert/text", as: String.self)
        } catch let error as WebDriverError where error.error == "no such alert" {
            return nil
        }
    }

    /// Dismisses the open dialog (Cancel).
    package func dismissAlert() async throws {
        try await connection.perform(.POST, "\(path)/alert/dismiss")
    }

    /// The current page's cookies as the browser stores them, `HttpOnly` ones included.
    package func cookies() async throws -> [WebDriverCookie] {
        try await connection.send(.GET, "\(path)/cookie")
    }

    /// A PNG of the viewport.
    package func screenshot() async throws -> Data {
        let encoded: String = try await connection.send(.GET, "\(path)/screenshot")
        guard let png = Data(base64Encoded: encoded) else {
            throw WebDriverError(error: "client", message: "the screenshot is not base64", command: "screenshot")
        }
        return png
    }

    /// Ends the session, closing its browser.
    package func delete() async throws {
        try await connection.perform(.DELETE, path)
    }
}

/// The body of `execute/sync`.
private struct ScriptCommand: Encodable, Sendable {
    let script: String
    let args: [String]
}

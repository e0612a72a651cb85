/// An element of the page a ``WebDriverSession`` found; stale once the page it belongs to is left.
package struct WebDriverElement: Sendable {
    /// The key under which WebDriver carries an element's reference.
    static let referenceKey = "element-6066-11e4-a52e-4f735466cecf"

    /// WebDriver's reference to the element.
    package let id: String
    let connection: WebDriverConnection
    let sessionPath: String

    private var path: String { "\(sessionPath)/element/\(id)" }

    /// Clicks it as a user would (scrolled into view; a covered element fails with `element click intercepted`).
    package func click() async throws {
        try await connection.perform(.POST, "\(path)/click")
    }

    /// Types `text` into it, as key presses.
    package func sendKeys(_ text: String) async throws {
        try await connection.perform(.POST, "\(path)/value", body: ["text": text])
    }

    /// Empties an input.
    package func clear() async throws {
        try await connection.perform(.POST, "\(path)/clear")
    }

    /// Its rendered text, as the user reads it (HTML entities decoded, markup gone).
    package func text() async throws -> String {
        try await connection.send(.GET, "\(path)/text")
    }

    /// The attribute `name` as the markup sets it (not the live property: a typed value is not in it); `nil` when
    /// absent.
    package func attribute(_ name: String) async throws -> String? {
        try await connection.send(.GET, "\(path)/attribute/\(name)")
    }

    /// The first descendant matching the CSS `selector`; throws `no such element` when none does.
    package func findElement(css selector: String) async throws -> WebDriverElement {
        let found: [String: String] = try await connection.send(
            .POST,
            "\(path)/element",
            body: ["using": "css selector", "value": selector]
        )
        return try WebDriverElement(reference: found, connection: connection, sessionPath: sessionPath)
    }

    /// Reads an element reference out of a command's answer.
    init(reference: [String: String], connection: WebDriverConnection, sessionPath: String) throws {
        guard let id = reference[Self.referenceKey] else {
            throw WebDriverError(error: "client", message: "no element reference in \(reference)", command: sessionPath)
        }
        self.id = id
        self.connection = connection
        self.sessionPath = sessionPath
    }
}

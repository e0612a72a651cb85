import AsyncHTTPClient
import Foundation
import HummingbirdBcrypt
import Logging
import NIOCore
import ReceiptdConsole
import ReceiptdCore
import ReceiptdTestKit
import ServiceLifecycle
import Testing

/// A real `ConsoleServer` on a seeded test database (see ConsoleBrowser+Seeding.swift), on the operator's role, and
/// a headless chromium driven over WebDriver: the ground of the console's browser tests.
struct ConsoleBrowser: Sendable {
    /// An operator: acts.
    static let agent = (name: "agent", password: "agent-password-1")
    /// A viewer: reads only.
    static let watcher = (name: "watcher", password: "watcher-password-1")

    /// The seeded world.
    let f: Fixture
    /// `http://127.0.0.1:PORT` of the console.
    let baseURL: String
    /// The browser.
    let session: WebDriverSession
    /// The database login the console connects as (a member of `receiptd_operator`).
    let databaseLogin: String

    /// Seeds a fixture, starts the console on it and a browser, runs `body`, and stops all of them.
    static func with(_ body: (ConsoleBrowser) async throws -> Void) async throws {
        try BrowserAvailability.require()
        try await Fixture.with { f in
            try await seed(f)
            let login = try await f.loginRole(in: "receiptd_operator")
            try await withConsole(on: login) { baseURL in
                try await ChromeDriver.with { driver in
                    try await driver.withSession { session in
                        // Fixture.loginRole's name for a member of receiptd_operator.
                        let databaseLogin = "\(f.database.name)_operator"
                        try await body(
                            ConsoleBrowser(f: f, baseURL: baseURL, session: session, databaseLogin: databaseLogin)
                        )
                    }
                }
            }
        }
    }

    /// Serves the console with `agent` and `watcher` (bcrypt cost 4: fast) while `body` runs.
    private static func withConsole(on login: String, _ body: (String) async throws -> Void) async throws {
        let users = [
            ConsoleUser(name: agent.name, passwordHash: Bcrypt.hash(agent.password, cost: 4), role: .operator),
            ConsoleUser(name: watcher.name, passwordHash: Bcrypt.hash(watcher.password, cost: 4), role: .viewer),
        ]
        // Plain http on loopback: a `Secure` cookie would never be sent back.
        try await ConsoleTestServer.with(connectionString: login, users: users, settings: { $0.insecureCookies = true })
        {
            try await body($0.base)
        }
    }

    /// Opens `pathAndQuery` (`/order?id=…`) of the console.
    func open(_ pathAndQuery: String) async throws {
        try await session.navigate(to: baseURL + pathAndQuery)
    }

    /// Signs in through the form, as a person would, and waits for the overview.
    func signIn(_ user: (name: String, password: String)) async throws {
        try await open("/signin")
        try await session.waitForElement(css: "#name").sendKeys(user.name)
        try await session.findElement(css: "#password").sendKeys(user.password)
        try await session.findElement(css: "#signin").click()
        try await session.waitForURL { $0.path == "/" }
    }

    /// The session cookie the browser holds, seen through WebDriver's cookie API (it is `HttpOnly`).
    func sessionCookie() async throws -> WebDriverCookie? {
        try await session.cookies().first { $0.name == ConsoleAuthentication.cookieName }
    }

    /// Waits for the page to show `selector`'s element and returns its text.
    func text(_ selector: String) async throws -> String {
        try await session.waitForElement(css: selector).text()
    }

    /// Clicks `selector`'s element and waits until the browser has left the page it was on and shows a page at
    /// `path`. The page left may be at `path` too (an action on an order's page lands on that page again): only
    /// its elements going stale tell the new page from the old one.
    func click(_ selector: String, landingAt path: String) async throws {
        let page = try await session.findElement(css: "html")
        try await session.waitForElement(css: selector).click()
        let deadline = ContinuousClock.now + .seconds(10)
        while true {
            do {
                _ = try await page.attribute("lang")
            } catch let error as WebDriverError where error.isStaleElement {
                break
            }
            guard ContinuousClock.now < deadline else {
                throw WebDriverError(error: "timeout", message: "still on the page after 10 s", command: "click")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        try await session.waitForURL { $0.path == path }
    }

    /// A value of the current address's query.
    func queryValue(_ name: String) async throws -> String? {
        URLComponents(string: try await session.currentURL())?.queryItems?.first { $0.name == name }?.value
    }

    /// Saves a screenshot of the page as `.build/test-artifacts/console/NAME.png` under the package root, prints
    /// and returns its path.
    @discardableResult
    func saveScreenshot(_ name: String) async throws -> URL {
        let directory = Self.artifactsDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appendingPathComponent("\(name).png")
        try await session.screenshot().write(to: file)
        print("console screenshot: \(file.path)")
        return file
    }

    /// `.build/test-artifacts/console/` of this package (a test artifact, never committed).
    static var artifactsDirectory: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/test-artifacts/console", isDirectory: true)
    }

    /// Sends `POST path` with the urlencoded `fields` and `cookie` (a session token) from outside the browser, as a
    /// forged cross-site form would, without following a redirect; returns the status and the `Location`.
    func post(
        _ path: String,
        fields: [(String, String)],
        cookie: String?
    ) async throws -> (status: Int, location: String?) {
        var request = HTTPClientRequest(url: baseURL + path)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
        if let cookie { request.headers.add(name: "Cookie", value: "\(ConsoleAuthentication.cookieName)=\(cookie)") }
        request.body = .bytes(ByteBuffer(string: Self.formEncoded(fields)))
        return try await send(request)
    }

    /// Sends `GET path` with `cookie`, without following a redirect.
    func get(_ path: String, cookie: String?) async throws -> (status: Int, location: String?) {
        var request = HTTPClientRequest(url: baseURL + path)
        if let cookie { request.headers.add(name: "Cookie", value: "\(ConsoleAuthentication.cookieName)=\(cookie)") }
        return try await send(request)
    }

    private func send(_ request: HTTPClientRequest) async throws -> (status: Int, location: String?) {
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .disallow)
        )
        do {
            let response = try await client.execute(request, timeout: .seconds(10))
            _ = try await response.body.collect(upTo: 1 << 20)
            try await client.shutdown()
            return (Int(response.status.code), response.headers.first(name: "Location"))
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private static func formEncoded(_ fields: [(String, String)]) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return fields.map { name, value in
            "\(name.addingPercentEncoding(withAllowedCharacters: allowed)!)="
                + value.addingPercentEncoding(withAllowedCharacters: allowed)!
        }.joined(separator: "&")
    }
}

import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1
import ReceiptdConsole
import ReceiptdCore
import ServiceLifecycle
import Synchronization
import Testing

/// A real `ConsoleServer` on a free loopback port, reading a test database, with a clock the test moves, and an
/// HTTP client that follows no redirects.
struct ConsoleTestServer: Sendable {
    /// The console's clock: sessions and the sign-in limit see only what the test sets.
    final class Clock: Sendable {
        private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        var now: Date { current.withLock { $0 } }
        func advance(by duration: Duration) {
            let (seconds, attoseconds) = duration.components
            current.withLock { $0.addTimeInterval(TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18) }
        }
    }

    /// One answer: status, headers and body.
    struct Answer {
        var status: Int
        var headers: HTTPHeaders
        var body: String

        /// The `Location` header.
        var location: String? { headers.first(name: "location") }
        /// The `Set-Cookie` header.
        var setCookie: String? { headers.first(name: "set-cookie") }
        /// The session token the answer sets, if any.
        var sessionToken: String? {
            guard let cookie = setCookie, cookie.hasPrefix(ConsoleAuthentication.cookieName + "=") else { return nil }
            let value = cookie.dropFirst(ConsoleAuthentication.cookieName.count + 1).prefix { $0 != ";" }
            return value.isEmpty ? nil : String(value)
        }
    }

    let base: String
    let server: ConsoleServer
    let clock: Clock
    let client: HTTPClient

    /// A cost-4 hash of `password`: quick, and verified like any other.
    static func user(_ name: String, password: String, role: ConsoleRole = .operator) -> ConsoleUser {
        ConsoleUser(name: name, passwordHash: ConsoleUsersFile.hash(password: password, cost: 4), role: role)
    }

    /// Runs a console for `users` over `connectionString` while `body` runs.
    static func with(
        connectionString: String,
        users: [ConsoleUser],
        logger: Logger = Logger(label: "console", factory: { _ in SwiftLogNoOpLogHandler() }),
        settings adjust: (inout ConsoleSettings) -> Void = { _ in },
        _ body: (ConsoleTestServer) async throws -> Void
    ) async throws {
        var settings = ConsoleSettings()
        settings.port = 0
        adjust(&settings)
        let clock = Clock()
        let database = DatabasePool(connectionString: connectionString, maximumConnections: 4)
        let port = AsyncStream.makeStream(of: Int.self)
        let server = ConsoleServer(
            settings: settings,
            users: users,
            database: database,
            logger: logger,
            now: { clock.now },
            onListening: { port.continuation.yield($0) }
        )
        let client = HTTPClient(
            eventLoopGroupProvider: .singleton,
            configuration: .init(redirectConfiguration: .disallow)
        )
        let group = ServiceGroup(configuration: .init(services: [server], logger: logger))
        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            do {
                var ports = port.stream.makeAsyncIterator()
                let bound = try #require(await ports.next())
                let running = ConsoleTestServer(
                    base: "http://127.0.0.1:\(bound)",
                    server: server,
                    clock: clock,
                    client: client
                )
                try await body(running)
            } catch {
                await group.triggerGracefulShutdown()
                try? await client.shutdown()
                await database.close()
                throw error
            }
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }
        try await client.shutdown()
        await database.close()
    }

    /// `GET path` with the session cookie `token`.
    func get(_ path: String, token: String? = nil) async throws -> Answer {
        try await send(HTTPClientRequest(url: base + path), token: token)
    }

    /// `POST path` of `form` (urlencoded) with the session cookie `token` and `headers`.
    func post(
        _ path: String,
        form: [(String, String)],
        token: String? = nil,
        headers: [(String, String)] = []
    ) async throws -> Answer {
        var request = HTTPClientRequest(url: base + path)
        request.method = .POST
        request.headers.add(name: "content-type", value: "application/x-www-form-urlencoded")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let allowed = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))
        let encoded = form.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }
        request.body = .bytes(ByteBuffer(string: encoded.joined(separator: "&")))
        return try await send(request, token: token)
    }

    /// `POST /signin`.
    func signIn(_ name: String, _ password: String) async throws -> Answer {
        try await post("/signin", form: [("name", name), ("password", password)])
    }

    /// The live session of `token` (for its CSRF token), as the pages would show it.
    func session(_ token: String) async -> ConsoleSession? {
        await server.authentication.session(forToken: token)
    }

    private func send(_ request: HTTPClientRequest, token: String?) async throws -> Answer {
        var request = request
        if let token { request.headers.add(name: "cookie", value: "\(ConsoleAuthentication.cookieName)=\(token)") }
        let response = try await client.execute(request, timeout: .seconds(30))
        let body = try await response.body.collect(upTo: 1 << 22)
        return Answer(status: Int(response.status.code), headers: response.headers, body: String(buffer: body))
    }
}

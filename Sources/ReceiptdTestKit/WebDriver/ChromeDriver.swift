import Foundation

/// Debian's `chromedriver`, started on a free loopback port as a child process in a process group of its own, and
/// stopped with every chromium it launched. ``with(_:)`` stops it however the body ends.
package final class ChromeDriver: Sendable {
    /// Debian's `chromium-driver`.
    package static let driverPath = "/usr/bin/chromedriver"
    /// Debian's `chromium`.
    package static let browserPath = "/usr/bin/chromium"
    /// The browser's arguments: headless; without the sandbox, which cannot run as root; a fixed window size so
    /// that screenshots and layouts do not depend on the machine.
    package static let browserArguments = [
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000",
    ]

    /// Whether both programs are installed.
    package static var isAvailable: Bool {
        FileManager.default.isExecutableFile(atPath: driverPath)
            && FileManager.default.isExecutableFile(atPath: browserPath)
    }

    /// The port chromedriver listens on at 127.0.0.1.
    package let port: Int
    /// chromedriver and the browsers it starts.
    package let process: ProcessGroup
    /// Where chromedriver's own output goes (read it when a session will not start).
    package let logPath: String
    let connection: WebDriverConnection

    private init(port: Int, process: ProcessGroup, logPath: String) {
        self.port = port
        self.process = process
        self.logPath = logPath
        self.connection = WebDriverConnection(baseURL: "http://127.0.0.1:\(port)")
    }

    /// Starts chromedriver, runs `body`, and stops chromedriver and its browsers, also when `body` throws.
    package static func with<T>(_ body: (ChromeDriver) async throws -> T) async throws -> T {
        let driver = try await start()
        do {
            let result = try await body(driver)
            driver.stop()
            return result
        } catch {
            driver.stop()
            throw error
        }
    }

    /// Starts chromedriver and waits (up to `timeout`) until its `/status` says it is ready for sessions.
    package static func start(timeout: Duration = .seconds(30)) async throws -> ChromeDriver {
        let port = try LoopbackPort.free()
        let logPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("receiptd-chromedriver-\(UUID().uuidString).log").path
        let process = try ProcessGroup.launch(
            driverPath,
            ["--port=\(port)", "--allowed-ips=127.0.0.1"],
            outputPath: logPath
        )
        let driver = ChromeDriver(port: port, process: process, logPath: logPath)
        do {
            try await driver.waitUntilReady(timeout: timeout)
        } catch {
            driver.stop()
            throw error
        }
        return driver
    }

    private struct Status: Decodable {
        let ready: Bool
    }

    private func waitUntilReady(timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        var probe = connection
        probe.timeout = .seconds(2)
        while true {
            if let status = try? await probe.send(.GET, "/status", as: Status.self), status.ready { return }
            guard process.isRunning else {
                throw WebDriverError(error: "client", message: "chromedriver exited: \(log())", command: "start")
            }
            guard ContinuousClock.now < deadline else {
                throw WebDriverError(error: "timeout", message: "chromedriver not ready: \(log())", command: "start")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// The end of chromedriver's output.
    package func log() -> String {
        String(((try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "").suffix(2000))
    }

    /// A new headless browser.
    package func newSession() async throws -> WebDriverSession {
        let created: NewSession = try await connection.send(.POST, "/session", body: SessionRequest())
        return WebDriverSession(id: created.sessionId, connection: connection)
    }

    /// Runs `body` with a new browser and closes the browser afterwards, also when `body` throws.
    package func withSession<T>(_ body: (WebDriverSession) async throws -> T) async throws -> T {
        let session = try await newSession()
        do {
            let result = try await body(session)
            try await session.delete()
            return result
        } catch {
            try? await session.delete()
            throw error
        }
    }

    /// Stops chromedriver and every browser it started; removes its log. Idempotent.
    package func stop() {
        process.stop()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    private struct NewSession: Decodable {
        let sessionId: String
    }
}

/// `POST /session`: chromium at ``ChromeDriver/browserPath`` with ``ChromeDriver/browserArguments``.
private struct SessionRequest: Encodable, Sendable {
    struct Capabilities: Encodable, Sendable {
        struct Always: Encodable, Sendable {
            struct ChromeOptions: Encodable, Sendable {
                var binary = ChromeDriver.browserPath
                var args = ChromeDriver.browserArguments
            }
            var browserName = "chrome"
            var chromeOptions = ChromeOptions()

            enum CodingKeys: String, CodingKey {
                case browserName
                case chromeOptions = "goog:chromeOptions"
            }
        }
        var alwaysMatch = Always()
    }
    var capabilities = Capabilities()
}

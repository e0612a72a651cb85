import Foundation
import Hummingbird
import Logging
import NIOCore
import ReceiptdCore
import ServiceLifecycle

/// `receiptd console`: the support console's HTTP server, on the operator's database role. A separate process
/// from `receiptd run`: the daemons never serve it.
package struct ConsoleServer: Service {
    /// Where it listens, the cookies' flags, the sessions' lifetime.
    package let settings: ConsoleSettings
    /// Sign-in, sessions, CSRF and the failed sign-in limit.
    package let authentication: ConsoleAuthentication
    /// Connections on the operator's role.
    package let database: DatabasePool
    /// The server's log: requests' outcomes, never a password, cookie or token.
    package let logger: Logger
    /// Called with the bound port once the server listens (tests pass port 0).
    package let onListening: @Sendable (Int) async -> Void

    /// A console for `users`, reading through `database`; `now` is the clock of sessions and the sign-in limit.
    package init(
        settings: ConsoleSettings,
        users: [ConsoleUser],
        database: DatabasePool,
        logger: Logger,
        now: @escaping @Sendable () -> Date = Date.init,
        onListening: @escaping @Sendable (Int) async -> Void = { _ in }
    ) {
        self.settings = settings
        self.authentication = ConsoleAuthentication(settings: settings, users: users, now: now)
        self.database = database
        self.logger = logger
        self.onListening = onListening
    }

    /// Serves until graceful shutdown.
    package func run() async throws {
        let onListening = self.onListening
        let application = Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(settings.host, port: settings.port), serverName: nil),
            onServerRunning: { channel in await onListening(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        try await application.runService()
    }

    /// Every route: the assets, sign-in and sign-out, and the pages and actions, all behind the gate.
    package func makeRouter() -> Router<ConsoleRequestContext> {
        let router = Router(context: ConsoleRequestContext.self)
        router.add(middleware: ConsoleSecurityHeaders())
        router.add(middleware: ConsoleGate(authentication: authentication))
        router.get(RouterPath(stringLiteral: ConsoleAssets.stylesheetPath)) { _, _ in ConsoleAssets.stylesheet() }
        router.get(RouterPath(stringLiteral: ConsoleAssets.scriptPath)) { _, _ in ConsoleAssets.script() }
        addAuthentication(to: router)
        addPages(to: router)
        return router
    }
}

extension ConsoleServer {
    /// The console's connections, as `receiptd console`, the demo and the benchmark open them: a few, each
    /// statement bounded in time and never waiting long on a lock the daemons or the game hold, and without JIT
    /// (a page's statements are short; compiling them would cost more than running them).
    package static func databasePool(
        connectionString: String,
        applicationName: String = "receiptd console"
    )
        -> DatabasePool
    {
        DatabasePool(
            connectionString: connectionString,
            maximumConnections: 8,
            sessionSettings: [
                ("statement_timeout", "10s"), ("lock_timeout", "2s"), ("jit", "off"),
                ("application_name", applicationName),
            ]
        )
    }
}

import Foundation
import HummingbirdBcrypt
import Logging
import ReceiptdConsole
import ReceiptdCore
import ServiceLifecycle

#if canImport(Glibc)
import Glibc
#endif

/// `receiptd demo --console`: once the demo has run, the support console on the demo's throwaway database, for a
/// user `demo` with a fresh random password, until Ctrl-C (SIGINT) or SIGTERM. Plain HTTP on loopback, so the
/// session cookie goes without `Secure`.
package struct DemoConsole: Sendable {
    /// The console's port when it is free.
    package static let preferredPort = 9470
    /// The user the demo signs in.
    package static let userName = "demo"

    /// The demo's throwaway PostgreSQL.
    let database: DemoDatabase
    let logger: Logger
    let say: @Sendable (String) -> Void

    /// A console on `database`, narrating through `say`.
    package init(database: DemoDatabase, logger: Logger, say: @escaping @Sendable (String) -> Void) {
        self.database = database
        self.logger = logger
        self.say = say
    }

    /// Writes the users file, serves the console, prints where and as whom to sign in, and returns after SIGINT or
    /// SIGTERM once the server has stopped.
    package func serve() async throws {
        let password = Self.randomPassword()
        let usersFile = database.directory + "/console-users"
        let user = ConsoleUser(
            name: Self.userName,
            passwordHash: Bcrypt.hash(password, cost: 10),
            role: .operator
        )
        // Readable by this user only, as the users file of a real console should be.
        guard
            FileManager.default.createFile(
                atPath: usersFile,
                contents: Data("\(user.name):\(user.passwordHash)\n".utf8),
                attributes: [.posixPermissions: 0o600]
            )
        else { throw ToolError("demo: cannot write \(usersFile)") }
        let login = try await operatorLogin()
        var settings = ConsoleSettings()
        settings.host = "127.0.0.1"
        settings.port = Self.isFree(port: Self.preferredPort) ? Self.preferredPort : 0
        settings.usersFile = usersFile
        settings.insecureCookies = true
        let pool = ConsoleServer.databasePool(connectionString: login.connectionString)
        let say = self.say
        let address = "127.0.0.1"
        let server = ConsoleServer(
            settings: settings,
            users: [user],
            database: pool,
            logger: logger,
            onListening: { port in
                say("")
                say("Console: http://\(address):\(port)/")
                say("Sign in as: \(Self.userName)")
                say("Password: \(password)")
                say("Users file: \(usersFile)")
                say("Database login: \(login.name)")
                say("Throwaway PostgreSQL: \(database.dataDirectory)")
                say("Press Ctrl-C to stop the console and remove the throwaway PostgreSQL.")
                // A pipe or a file buffers standard output: whoever reads the address must see it now.
                fflush(nil)
            }
        )
        let group = ServiceGroup(
            configuration: .init(
                // Hummingbird's server answers SIGINT itself and returns: that ends the group, not an error.
                services: [.init(service: server, successTerminationBehavior: .gracefullyShutdownGroup)],
                gracefulShutdownSignals: [.sigint, .sigterm],
                logger: logger
            )
        )
        do {
            try await group.run()
            await pool.close()
        } catch {
            await pool.close()
            throw error
        }
        say("Console stopped.")
    }

    /// A login of the operator's role for the console, as production runs it; the demo's superuser when the role
    /// cannot be made.
    private func operatorLogin() async throws -> (name: String, connectionString: String) {
        let name = "receiptd_console_demo"
        let connection = try await PostgresConnection.connect(database.connectionString)
        do {
            // Identifiers cannot be parameters; the name is ours.
            try await connection.execute("CREATE ROLE \(name) LOGIN IN ROLE receiptd_operator")
            await connection.close()
        } catch {
            await connection.close()
            return ("postgres (superuser)", database.connectionString)
        }
        return (name, database.connectionString.replacingOccurrences(of: "user=postgres", with: "user=\(name)"))
    }

    /// 20 characters from the system's random source, letters and digits only (easy to copy from a terminal).
    static func randomPassword() -> String {
        let alphabet = Array("ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
    }

    /// Whether nothing listens on 127.0.0.1:`port`: binding it succeeds (and is let go at once).
    static func isFree(port: Int) -> Bool {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

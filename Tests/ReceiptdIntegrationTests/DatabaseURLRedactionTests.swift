import Foundation
import Testing

/// A `DATABASE_URL` whose password has a bad percent-escape: libpq quotes the password in its error,
/// and no command may print it (`receiptd status` and the other operator commands are in `CommandLineTests`).
@Suite struct DatabaseURLRedactionTests {
    static let url = "postgresql://bob:p%zzSECRETpw@127.0.0.1:1/db"

    func expectNoSecret(_ run: ReceiptdBinary.Run, _ comment: Comment) {
        for output in [run.stdout, run.stderr] {
            #expect(!output.contains("SECRETpw") && !output.contains("p%zz"), comment)
        }
    }

    @Test func migrateFailsWithoutPrintingThePassword() throws {
        let flag = try ReceiptdBinary.run(["migrate", "--database-url", Self.url])
        #expect(flag.status != 0)
        #expect(
            flag.stderr.contains("invalid percent-encoded token"),
            "the error itself is still shown: \(flag.stderr)"
        )
        expectNoSecret(flag, "migrate --database-url")
    }

    @Test func migrateFromTheEnvironmentFailsWithoutPrintingThePassword() throws {
        // ReceiptdBinary.run clears DATABASE_URL; an operator sets it, so pass it the way the shell would.
        let run = try ReceiptdBinary.run(["migrate"], environment: ["DATABASE_URL": Self.url])
        #expect(run.status != 0 && !run.stderr.isEmpty)
        expectNoSecret(run, "migrate with DATABASE_URL")
    }

    @Test func theDaemonNeverLogsThePassword() async throws {
        var environment = ProcessInfo.processInfo.environment
        environment.merge([
            "DATABASE_URL": Self.url, "APPLE_BUNDLE_ID": "com.example.game", "APPLE_SHARED_SECRET": "apple-secret-x",
            "RECEIPTD_LOG_LEVEL": "trace", "RECEIPTD_LOG_FORMAT": "json", "RECEIPTD_METRICS_ADDR": "",
            "RECEIPTD_SHUTDOWN_GRACE": "1",
        ]) { $1 }
        // Long enough for the listener, the pool and the heartbeat to fail and retry; SIGTERM covers the shutdown path.
        let run = try await ReceiptdBinary.runDaemon(environment: environment, for: .seconds(3))
        let logs = run.stdout + run.stderr
        #expect(
            logs.contains("invalid percent-encoded token"),
            "the connection errors are logged: \(logs.prefix(2000))"
        )
        expectNoSecret(run, "receiptd run")
        #expect(!logs.contains("apple-secret-x"))
    }

    /// Passwords holding `?`, `/` or `#` (the issue's `Xy?7%pq` among them): libpq splits such a URI elsewhere than
    /// meant and quotes a piece of the password in its error, which no command may print.
    static let awkward = [
        ("postgresql://bob:XyW?7%pqSECRET@127.0.0.1:1/db", ["XyW", "pqSECRET", "SECRET"]),
        ("postgresql://bob:XyW/7%pqSECRET@127.0.0.1:1/db", ["XyW", "pqSECRET", "SECRET"]),
        ("postgresql://bob:XyW#7%pqSECRET@127.0.0.1:1/db", ["XyW", "pqSECRET", "SECRET"]),
        // No bad escape: libpq parses it, reading `XyW` as the port, and says so when connecting.
        ("postgresql://bob:XyW/SECRETpw@127.0.0.1:1/db", ["XyW", "SECRET"]),
    ]

    static func expectNone(of pieces: [String], in run: ReceiptdBinary.Run, _ comment: String) {
        for output in [run.stdout, run.stderr] {
            for piece in pieces {
                #expect(!output.contains(piece), "\(comment) printed \(piece): \(output.prefix(2000))")
            }
        }
    }

    @Test(arguments: awkward.indices)
    func statusNeverPrintsAPasswordHoldingURISeparators(index: Int) throws {
        let (url, pieces) = Self.awkward[index]
        let run = try ReceiptdBinary.run(["status", "--database-url", url])
        #expect(run.status == 1 && run.stderr.contains("cannot use the database"), "\(run.stderr)")
        Self.expectNone(of: pieces, in: run, "status")
        let migrate = try ReceiptdBinary.run(["migrate"], environment: ["DATABASE_URL": url])
        #expect(migrate.status != 0 && !migrate.stderr.isEmpty)
        Self.expectNone(of: pieces, in: migrate, "migrate")
    }

    @Test func theDaemonNeverLogsAPasswordHoldingURISeparators() async throws {
        for (url, pieces) in Self.awkward.prefix(2) {
            var environment = ProcessInfo.processInfo.environment
            environment.merge([
                "DATABASE_URL": url, "APPLE_BUNDLE_ID": "com.example.game", "RECEIPTD_LOG_LEVEL": "trace",
                "RECEIPTD_LOG_FORMAT": "json", "RECEIPTD_METRICS_ADDR": "", "RECEIPTD_SHUTDOWN_GRACE": "1",
            ]) { $1 }
            let run = try await ReceiptdBinary.runDaemon(environment: environment, for: .seconds(3))
            #expect(
                (run.stdout + run.stderr).contains("cannot parse the connection string"),
                "\((run.stdout + run.stderr).prefix(2000))"
            )
            Self.expectNone(of: pieces, in: run, "receiptd run")
        }
    }
}

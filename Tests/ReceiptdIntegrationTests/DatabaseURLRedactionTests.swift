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
        #expect(flag.stderr.contains("invalid percent-encoded token"), "the error itself is still shown: \(flag.stderr)")
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
        #expect(logs.contains("invalid percent-encoded token"), "the connection errors are logged: \(logs.prefix(2000))")
        expectNoSecret(run, "receiptd run")
        #expect(!logs.contains("apple-secret-x"))
    }
}

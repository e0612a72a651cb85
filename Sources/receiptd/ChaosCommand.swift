import ArgumentParser
import Foundation
import ReceiptdTools

/// `receiptd chaos`: proves crash safety by breaking things on purpose.
struct ChaosCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chaos",
        abstract:
            "Run daemons through faults, SIGKILLs and a database restart on a throwaway PostgreSQL, then check every order."
    )

    @Option(help: "Daemon processes.") var daemons = 3
    @Option(help: "Orders to enqueue.") var orders = 1_000
    @Option(help: "Seconds between SIGKILLs of a random daemon (0: none).") var killInterval = 3.0
    @Flag(inversion: .prefixedNo, help: "Restart PostgreSQL with -m immediate mid-run.") var restartDatabase = true
    @Option(help: "Seconds PostgreSQL is stopped once, later in the run (0: never).") var databaseOutage = 2.5
    @Flag(inversion: .prefixedNo, help: "Send forged cancel notifications for running jobs.") var forgeCancels = true
    @Flag(
        inversion: .prefixedNo,
        help: "Google Play answers 503 until App Store orders enqueued meanwhile have settled."
    )
    var storeOutage = true
    @Option(help: "Give up (and fail) after this many seconds.") var timeLimit = 240.0
    @Option(help: "Seed of the stand-in's fault draws.") var seed: UInt64 = 1

    func validate() throws {
        guard daemons >= 1, orders >= 10, killInterval >= 0, databaseOutage >= 0, timeLimit > 0 else {
            throw ValidationError(
                "need --daemons ≥ 1, --orders ≥ 10, --kill-interval ≥ 0, --database-outage ≥ 0, --time-limit > 0"
            )
        }
    }

    func run() async throws {
        let executable =
            (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var configuration = ChaosRun.Configuration(
            daemons: daemons,
            orders: orders,
            killInterval: killInterval,
            restartDatabase: restartDatabase,
            databaseOutage: databaseOutage,
            forgeCancels: forgeCancels,
            timeLimit: timeLimit,
            seed: seed
        )
        configuration.storeOutage = storeOutage
        let run = ChaosRun(configuration: configuration, executable: executable, say: { print("chaos: \($0)") })
        let report = try await run.run()
        print(report.summary)
        if !report.violations.isEmpty { throw ExitCode.failure }
    }
}

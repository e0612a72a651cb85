import ArgumentParser
import Foundation
import ReceiptdTools

/// `receiptd loadgen`: enqueues synthetic orders for a load test, and with `--wait` checks their outcomes.
struct LoadgenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loadgen",
        abstract:
            "Enqueue synthetic orders (for the stand-in App Store) and optionally wait for and check their outcomes."
    )

    @OptionGroup var options: OperatorOptions
    @Option(help: "Orders to create (a replay pair counts as two).") var orders: Int
    @Option(help: "Orders per second (default: as fast as the database takes them).") var rate: Double?
    @Option(help: "Distinct users the orders are spread over.") var users = 10_000
    @Option(help: "Shares of order kinds.") var mix = LoadMix.standard.description
    @Option(
        help:
            "The `receiptd fake-appstore` that signs the transaction kind's signed transactions (its root must be the daemons' APPLE_ROOT_CA_FILE)."
    )
    var fakeAppstore = "http://127.0.0.1:8089"
    @Flag(help: "Follow the run until every order has an outcome, then check them against the mix.") var wait = false
    @Option(help: "With --wait, give up after this many seconds.") var waitTimeout = 600.0

    func validate() throws {
        guard orders >= 1, users >= 1, rate.map({ $0 > 0 }) ?? true, waitTimeout > 0 else {
            throw ValidationError("need --orders ≥ 1, --users ≥ 1, --rate > 0, --wait-timeout > 0")
        }
        do { _ = try LoadMix(parsing: mix) } catch { throw ValidationError("--\(error)") }
    }

    func run() async throws {
        let generator = LoadGenerator(
            configuration: .init(
                orders: orders,
                rate: rate,
                users: users,
                mix: try LoadMix(parsing: mix),
                signer: .standIn(baseURL: fakeAppstore)
            ),
            databaseURL: options.connectionString
        )
        let progress = ProgressLine(enabled: !options.json && isatty(1) == 1)
        let summary = try await generator.run { progress.show("enqueued \($0)/\(orders)") }
        progress.finish()
        var verdict: LoadVerdict?
        if wait {
            verdict = try await generator.waitForOutcomes(of: summary, timeout: waitTimeout) {
                progress.show("settled \($0)/\($1)")
            }
            progress.finish()
        }
        if options.json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            let document = LoadReport(load: summary, wait: verdict)
            print(String(decoding: try encoder.encode(document), as: UTF8.self))
        } else {
            print(summary.summary)
            if let verdict { print(verdict.summary) }
        }
        if let verdict, !verdict.isCorrect { throw ExitCode.failure }
    }
}

import ArgumentParser
import Foundation
import Logging
import ReceiptdCore
import ReceiptdTools

/// `receiptd demo`: the whole pipeline on a throwaway PostgreSQL and the stand-in App Store.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract:
            "Run receiptd end to end on a throwaway PostgreSQL and the stand-in App Store, and print each order's outcome."
    )

    @Option(help: "Log level of the daemon during the demo.") var logLevel: Logger.Level = .notice
    @Flag(
        help:
            "Afterwards, serve the support console on the demo's database (user demo, a fresh password) until Ctrl-C."
    )
    var console = false

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let logger = Logger(label: "receiptd")
        let demo = DemoRun(logger: logger, say: { print($0) })
        guard console else {
            guard Self.report(try await demo.run()) else { throw ExitCode.failure }
            return
        }
        // The outcomes first, then the console until Ctrl-C; the exit status says how the demo went.
        let outcome = try await demo.run { outcome, database in
            _ = Self.report(outcome)
            try await DemoConsole(database: database, logger: logger, say: { print($0) }).serve()
        }
        guard Self.isExpected(outcome) else { throw ExitCode.failure }
    }

    /// Whether every outcome and webhook was as the scenario says.
    private static func isExpected(_ outcome: DemoRun.Outcome) -> Bool {
        outcome.rows.allSatisfy(\.isExpected) && outcome.webhooks.problems.isEmpty
    }

    /// Prints every order's outcome, the ledger, the unclaimed payments and the webhooks; false when an outcome
    /// or a webhook was not as the scenario says.
    private static func report(_ outcome: DemoRun.Outcome) -> Bool {
        let (rows, ledger, unclaimed, webhooks) = outcome
        print("")
        print(pad(["order", "user", "qty", "delivered", "outcome", "status", "jobs"]))
        for row in rows {
            print(pad([row.orderID, row.userID, row.quantity, row.delivered, row.outcome, row.status, row.jobs]))
        }
        print("\nLedger: \(ledger) transactions delivered, each once.")
        let provisional = rows.compactMap { row in row.provisional.map { "\(row.orderID) (\($0))" } }
        print("Provisional grants: \(provisional.isEmpty ? "none" : provisional.joined(separator: ", "))")
        print(
            "Unclaimed payments (for `receiptd assign`): \(unclaimed.isEmpty ? "none" : unclaimed.joined(separator: ", "))"
        )
        printWebhooks(webhooks)
        let unexpected = rows.filter { !$0.isExpected }
        if !unexpected.isEmpty {
            print(
                "Unexpected outcomes: \(unexpected.map { "\($0.orderID)=\($0.outcome)/\($0.status)" }.joined(separator: ", "))"
            )
        }
        let problems = webhooks.problems
        if !problems.isEmpty { print("Webhook problems: \(problems.joined(separator: "; "))") }
        return isExpected(outcome)
    }

    /// The events the stand-in receiver got, in the order written, and the count of each type.
    private static func printWebhooks(_ webhooks: DemoWebhooks) {
        print("\nWebhooks to the stand-in receiver (\(webhooks.url)), in the order written:")
        let widths = [30, 22, 9, 9]
        let cells =
            [["type", "order", "verified", "attempts", "answers"]]
            + webhooks.events.map { event in
                [
                    event.type + (event.provisional ? " (provisional)" : ""), event.orderID ?? "-",
                    webhooks.verified(event.id) ? "yes" : "NO", String(event.attempts),
                    webhooks.answers(to: event.id).joined(separator: ", "),
                ]
            }
        for row in cells {
            print(
                row.map(\.terminalSafe).enumerated().map { index, cell in
                    index < widths.count ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
                }.joined(separator: " ")
            )
        }
        let counts = webhooks.countsByType.map { "\($0.type) \($0.count)" }.joined(separator: ", ")
        print(
            "Events: \(webhooks.events.count) (\(counts)); delivered: \(webhooks.delivered.count), each acted on once."
        )
    }

    private static func pad(_ cells: [String]) -> String {
        let widths = [22, 8, 3, 9, 10, 9]
        return cells.map(\.terminalSafe).enumerated().map { index, cell in
            index < widths.count ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
        }.joined(separator: " ")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

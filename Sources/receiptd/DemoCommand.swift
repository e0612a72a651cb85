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

    func run() async throws {
        let level = logLevel
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
        let (rows, ledger, unclaimed, webhooks) = try await DemoRun(
            logger: Logger(label: "receiptd"),
            say: { print($0) }
        ).run()
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
        if !unexpected.isEmpty || !problems.isEmpty { throw ExitCode.failure }
    }

    /// The events the stand-in receiver got, in the order written, and the count of each type.
    private func printWebhooks(_ webhooks: DemoWebhooks) {
        print("\nWebhooks to the stand-in receiver (\(webhooks.url)), in the order written:")
        let widths = [30, 18, 9, 9]
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

    private func pad(_ cells: [String]) -> String {
        let widths = [18, 8, 3, 9, 10, 9]
        return cells.map(\.terminalSafe).enumerated().map { index, cell in
            index < widths.count ? cell.padding(toLength: widths[index], withPad: " ", startingAt: 0) : cell
        }.joined(separator: " ")
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

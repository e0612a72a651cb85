import ArgumentParser
import ReceiptdCore

/// `receiptd retry JOB|ORDER` and `receiptd retry --failed --since T`.
struct RetryCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry",
        abstract: "Give an order a fresh job with its latest receipt, due now.",
        discussion:
            "A number that is a job id means that job's order. The order must not be full and must have no pending or running job."
    )

    @OptionGroup var options: OperatorOptions

    @Argument(help: "A job id (meaning its order) or an order id.")
    var reference: String?

    @Flag(help: "Retry every order that became failed or invalid since --since.")
    var failed = false

    @Option(help: "With --failed: 90m, 2h, 7d or an ISO-8601 time.", transform: TimeBound.init(parsing:))
    var since: TimeBound?

    func validate() throws {
        if failed {
            guard reference == nil else { throw ValidationError("give either JOB|ORDER or --failed, not both") }
            guard since != nil else { throw ValidationError("--failed needs --since, e.g. --since 24h") }
        } else {
            guard reference != nil else { throw ValidationError("give a job id or an order id, or --failed --since T") }
            guard since == nil else { throw ValidationError("--since only goes with --failed") }
        }
    }

    func run() async throws {
        if failed, let since {
            try await perform({ try await $0.retryFailed(since: since) }, text: Self.text)
        } else if let reference {
            try await perform({ try await $0.retry(reference) }) {
                "Order \($0.orderID.terminalSafe): new job \($0.jobID), due now."
            }
        }
    }

    /// What a bulk retry did, for people.
    static func text(_ result: BulkRetryResult) -> String {
        guard !result.retried.isEmpty || !result.skipped.isEmpty else {
            return "No failed or invalid orders in that time."
        }
        var lines = ["Retried \(result.retried.count) order(s), skipped \(result.skipped.count)."]
        if !result.retried.isEmpty {
            lines.append(
                TextTable(headers: ["ORDER", "NEW JOB"], rows: result.retried.map { [$0.orderID, String($0.jobID)] })
                    .render()
            )
        }
        if !result.skipped.isEmpty {
            lines.append(
                "Skipped:\n"
                    + TextTable(headers: ["ORDER", "WHY"], rows: result.skipped.map { [$0.orderID, $0.reason] })
                    .render()
            )
        }
        return lines.joined(separator: "\n\n")
    }
}

import ArgumentParser
import ReceiptdCore

/// `receiptd cancel JOB|ORDER`.
struct CancelCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Cancel an order's pending or running job; a running one's daemon aborts and records nothing.",
        discussion: "A number that is a job id means that job's order. The order's outcome is left as it is."
    )

    @OptionGroup var options: OperatorOptions

    @Argument(help: "A job id (meaning its order) or an order id.")
    var reference: String

    func run() async throws {
        try await perform({ try await $0.cancel(reference) }) {
            "Order \($0.orderID.terminalSafe): job \($0.jobID) cancelled."
        }
    }
}

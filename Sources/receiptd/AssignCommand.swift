import ArgumentParser
import ReceiptdCore

/// `receiptd assign TRANSACTION_ID ORDER`: delivers an unclaimed payment to the order it was meant for.
struct AssignCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "assign",
        abstract: "Deliver an unclaimed payment to an order of the same product that is not full (iap.assign_payment).",
        discussion:
            "Exit 3 for an unknown payment or order; 4 when the payment is delivered already, the order is full, or the products differ."
    )

    @OptionGroup var options: OperatorOptions

    @Argument(help: "The unclaimed payment's transaction id (see `receiptd unclaimed`).")
    var transactionID: String

    @Argument(help: "The order to deliver it to.")
    var order: String

    func run() async throws {
        try await perform({ try await $0.assign(transactionID: transactionID, to: order) }) { result in
            "Payment \(result.transactionID.terminalSafe) delivered to order \(result.orderID.terminalSafe): \(result.outcome)."
        }
    }
}

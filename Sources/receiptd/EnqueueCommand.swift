import ArgumentParser
import Foundation
import ReceiptdCore

/// `receiptd enqueue`: `iap.enqueue_receipt` from the command line, e.g. to replay a receipt a player sent support.
struct EnqueueCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "enqueue",
        abstract: "Queue a base64 receipt for an order, as the game server would."
    )

    @OptionGroup var options: OperatorOptions

    @Option(help: "The game's order id.") var order: String
    @Option(help: "The paying user.") var user: String
    @Option(help: "The product bought.") var product: String
    @Option(help: "Units ordered.") var quantity = 1
    @Option(help: "A file holding the base64 receipt, or - for stdin. Whitespace and line breaks are ignored.")
    var receiptFile: String

    func validate() throws {
        guard quantity >= 1 else { throw ValidationError("--quantity must be at least 1") }
    }

    func run() async throws {
        let receipt: String
        do {
            let data =
                receiptFile == "-"
                ? FileHandle.standardInput.readDataToEndOfFile()
                : try Data(contentsOf: URL(fileURLWithPath: receiptFile))
            receipt = String(decoding: data, as: UTF8.self)
        } catch {
            FileHandle.standardError.write(
                Data(
                    "receiptd enqueue: cannot read the receipt from \(receiptFile): \(error.localizedDescription)\n"
                        .utf8
                )
            )
            throw OperatorExitCode.failure
        }
        guard !receipt.allSatisfy(\.isWhitespace) else {
            throw ValidationError("the receipt in \(receiptFile == "-" ? "stdin" : receiptFile) is empty")
        }
        let request = EnqueueRequest(
            orderID: order,
            userID: user,
            productID: product,
            quantity: quantity,
            receiptData: receipt
        )
        try await perform({ try await $0.enqueue(request) }) { "Order \($0.orderID.terminalSafe): job \($0.jobID)." }
    }
}

import ArgumentParser
import ReceiptdCore

/// `receiptd refunds answer REQUEST --preference P [--consumed M]`: answers a waiting request for the game.
struct RefundsAnswerCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "answer",
        abstract: "Answer a waiting refund request as an operator (iap.operator_answer_refund): the daemons send it.",
        discussion:
            "Recorded in iap.operator_actions as answer_refund. --consumed is thousandths of a percent (0 to 100000); grant_prorated needs one strictly between. Exit 2 for a bad value, 3 for an unknown request, 4 for one answered or expired already."
    )

    @OptionGroup var options: OperatorOptions

    static let errorName = "refunds answer"

    @Argument(
        help: "The request: Apple's notificationUUID or Google's pendingRefundToken, as `receiptd refunds` lists."
    )
    var request: String

    @Option(help: "decline, grant_full, grant_prorated or none.")
    var preference: RefundPreference

    @Option(help: "How much was consumed, in thousandths of a percent (0 to 100000).")
    var consumed: Int?

    func validate() throws {
        guard !request.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("REQUEST must not be empty.")
        }
        if let consumed, !(0...100_000).contains(consumed) {
            throw ValidationError("--consumed must be 0 to 100000 (thousandths of a percent), got \(consumed)")
        }
        if preference == .grantProrated, !(1...99_999).contains(consumed ?? 0) {
            throw ValidationError("--preference grant_prorated needs --consumed strictly between 0 and 100000")
        }
    }

    func run() async throws {
        try await perform({
            [try await $0.answerRefund(requestID: request, preference: preference, consumedMilliunits: consumed)]
        }) { answered in
            "Refund request \(request.terminalSafe) answered \(preference.rawValue); the daemons send it.\n\n"
                + RefundsListCommand.text(answered)
        }
    }
}

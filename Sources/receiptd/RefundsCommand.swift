import ArgumentParser
import ReceiptdCore

/// `receiptd refunds`: the stores' refund requests; listing them (`list`, the default) and answering one (`answer`).
struct RefundsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "refunds",
        abstract: "List the stores' refund requests (iap.refund_requests), or answer a waiting one.",
        discussion:
            "Apple's consumption requests (answer within 12 hours of Apple's signature) and Google's chargeback reviews (24 hours from the event). The game answers with iap.answer_refund_request, else the policy does (RECEIPTD_REFUND_GAME_WAIT); `answer` answers a waiting one as an operator. `receiptd refunds [USER]` lists.",
        subcommands: [RefundsListCommand.self, RefundsAnswerCommand.self],
        defaultSubcommand: RefundsListCommand.self
    )
}

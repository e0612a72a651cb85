import ArgumentParser
import ReceiptdCore

/// `receiptd unclaimed`: verified payments that paid no order, for an operator to assign.
struct UnclaimedCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "unclaimed",
        abstract: "List verified payments that paid no order (the client lost its order id), newest first.",
        discussion:
            "Give one to its order with `receiptd assign TRANSACTION_ID ORDER`. Google refunds a Google payment on "
            + "its ACKNOWLEDGE BY date unless it is assigned (and so acknowledged) before."
    )

    @OptionGroup var options: OperatorOptions

    @Option(
        help: "Only payments first seen since then: 90m, 2h, 7d or an ISO-8601 time.",
        transform: TimeBound.init(parsing:)
    )
    var since: TimeBound?

    @Flag(help: "Also list payments already assigned to an order.")
    var all = false

    func run() async throws {
        try await perform({ try await $0.unclaimed(since: since, includeAssigned: all) }, text: Self.text)
    }

    static func text(_ payments: [UnclaimedPayment]) -> String {
        guard !payments.isEmpty else { return "No unclaimed payments." }
        return TextTable(
            headers: [
                "TRANSACTION", "STORE", "PRODUCT", "QUANTITY", "BOUGHT", "ENVIRONMENT", "USER", "RECEIPT OF ORDER",
                "FIRST SEEN", "ACKNOWLEDGE BY", "ASSIGNED TO",
            ],
            rows: payments.map { payment in
                [
                    payment.transactionID, payment.store, payment.productID, String(payment.quantity),
                    payment.purchaseDate, payment.environment, payment.userID, payment.orderID, payment.firstSeenAt,
                    payment.acknowledgeBy, payment.assignedOrderID,
                ]
            }
        ).render()
    }
}

import ArgumentParser
import ReceiptdCore

/// `receiptd notifications`: what the stores told receiptd after delivery, newest first, filtered.
struct NotificationsCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "notifications",
        abstract: "List store notifications (refunds, revocations, consumption requests, tests …), newest first.",
        discussion: "Their payloads are never printed; `result` says what receiptd did with each."
    )

    @OptionGroup var options: OperatorOptions

    @Option(help: "Only this store's: apple or google.")
    var store: String?

    @Option(help: "Only this type, such as REFUND, CONSUMPTION_REQUEST, VOIDED_PURCHASE or TEST.")
    var type: String?

    @Option(
        help: "Only notifications received since then: 90m, 2h, 7d or an ISO-8601 time.",
        transform: TimeBound.init(parsing:)
    )
    var since: TimeBound?

    @Option(help: "At most this many.")
    var limit = 50

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
        if let store, !Store.allCases.map(\.rawValue).contains(store) {
            throw ValidationError("--store must be one of \(Store.allCases.map(\.rawValue).joined(separator: ", "))")
        }
    }

    func run() async throws {
        let filter = NotificationFilter(store: store, type: type, since: since, limit: limit)
        try await perform({ try await $0.notifications(filter) }, text: Self.text)
    }

    /// One line per notification for people.
    static func text(_ notifications: [NotificationSummary]) -> String {
        guard !notifications.isEmpty else { return "No notifications match." }
        return TextTable(
            headers: [
                "RECEIVED", "STORE", "TYPE", "SUBTYPE", "TRANSACTION", "ENV", "SOURCE", "PROCESSED", "RESULT", "ERROR",
            ],
            rows: notifications.map { notification in
                [
                    notification.receivedAt, notification.store, notification.type, notification.subtype,
                    notification.transactionID, notification.environment, notification.source,
                    notification.processedAt ?? "not yet", notification.result, notification.error,
                ]
            }
        ).render()
    }
}

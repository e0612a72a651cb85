import ArgumentParser
import ReceiptdCore

/// `receiptd show ORDER`: everything about one order.
struct ShowCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show an order with every job, every attempt and its deliveries."
    )

    @OptionGroup var options: OperatorOptions

    @Argument(help: "The order id.")
    var order: String

    func run() async throws {
        try await perform({ try await $0.show(orderID: order) }, text: Self.text)
    }

    /// The order's facts, then tables of jobs, attempts and deliveries, for people.
    static func text(_ detail: OrderDetail) -> String {
        let order = detail.order
        let facts: [(String, String?)] = [
            ("order", order.orderID), ("user", order.userID), ("product", order.productID),
            ("quantity", "\(order.quantity), delivered \(order.deliveredQuantity)"),
            (
                "outcome",
                order.outcome.map { outcome in order.outcomeAt.map { "\(outcome) at \($0)" } ?? outcome }
                    ?? "not settled"
            ),
            ("created", order.createdAt),
        ]
        let header = facts.map { $0.0.padding(toLength: 10, withPad: " ", startingAt: 0) + ($0.1 ?? "-").terminalSafe }
            .joined(separator: "\n")
        let jobs = TextTable(
            headers: ["JOB", "KIND", "STATE", "ATTEMPTS", "ENV", "CREATED", "FINISHED", "SUPERSEDED BY", "LAST ERROR"],
            rows: detail.jobs.map { job in
                [
                    String(job.id), job.kind.rawValue, job.state.rawValue, String(job.attempts), job.environment,
                    job.createdAt, job.finishedAt,
                    job.supersededBy.map(String.init), job.lastError,
                ]
            }
        ).render()
        let attempts = detail.jobs.flatMap { job in job.attemptLog.map { (job.id, $0) } }
        let attemptTable =
            attempts.isEmpty
            ? "Attempts: none recorded"
            : "Attempts:\n"
                + TextTable(
                    headers: ["JOB", "#", "RESULT", "APPLE", "HTTP", "ENV", "MS", "FINISHED", "ERROR"],
                    rows: attempts.map { job, attempt in
                        [
                            String(job), String(attempt.attempt), attempt.result, attempt.appleStatus.map(String.init),
                            attempt.httpStatus.map(String.init), attempt.environment, String(attempt.durationMs),
                            attempt.finishedAt,
                            attempt.error.map { error in attempt.errorClass.map { "\($0): \(error)" } ?? error }
                                ?? attempt.errorClass,
                        ]
                    }
                ).render()
        let deliveries =
            detail.deliveries.isEmpty
            ? "Deliveries: none"
            : "Deliveries:\n"
                + TextTable(
                    headers: ["TRANSACTION", "QTY", "JOB", "ENV", "PURCHASED", "DELIVERED"],
                    rows: detail.deliveries.map { delivery in
                        [
                            delivery.transactionID, String(delivery.quantity), delivery.jobID.map(String.init),
                            delivery.environment,
                            delivery.purchaseDate, delivery.deliveredAt,
                        ]
                    }
                ).render()
        return [header, "Jobs:\n" + jobs, attemptTable, deliveries].joined(separator: "\n\n")
    }
}

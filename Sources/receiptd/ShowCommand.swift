import ArgumentParser
import ReceiptdCore

/// `receiptd show ORDER`: everything about one order.
struct ShowCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract:
            "Show an order with every job, every attempt, its deliveries, the store notifications about them, its webhook events and the subscription it started or paid a period of."
    )

    @OptionGroup var options: OperatorOptions

    @Argument(help: "The order id, or the ledger id (transaction id, Google order id) of one of its deliveries.")
    var order: String

    func run() async throws {
        try await perform({ try await $0.show(orderID: order) }, text: Self.text)
    }

    /// The order's facts, then tables of jobs, attempts, deliveries and store notifications, for people.
    static func text(_ detail: OrderDetail) -> String {
        let order = detail.order
        var facts: [(String, String?)] =
            [
                ("order", order.orderID), ("user", order.userID), ("product", order.productID),
                ("quantity", "\(order.quantity), delivered \(order.deliveredQuantity)"),
                (
                    "outcome",
                    order.outcome.map { outcome in order.outcomeAt.map { "\(outcome) at \($0)" } ?? outcome }
                        ?? "not settled"
                ),
                ("created", order.createdAt),
            ]
        if let grant = detail.provisionalGrant {
            facts.append(
                (
                    "grant",
                    "provisional, \(grant.state.rawValue) (\(grant.cause.rawValue)): \(provisionalSummary(grant))"
                )
            )
        }
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
                    headers: [
                        "TRANSACTION", "QTY", "JOB", "ENV", "KIND", "OWNERSHIP", "PRICE", "OFFER", "PURCHASED",
                        "DELIVERED", "REVOKED", "REASON", "SHARE", "UNITS REVOKED", "REVOCATION HANDLED",
                    ],
                    rows: detail.deliveries.map { delivery in
                        [
                            delivery.transactionID, String(delivery.quantity), delivery.jobID.map(String.init),
                            delivery.environment, delivery.productKind, delivery.ownership,
                            delivery.priceText,
                            offer(delivery),
                            delivery.purchaseDate, delivery.deliveredAt, delivery.revokedAt, delivery.revocationReason,
                            delivery.revokedAt == nil
                                ? delivery.revocationPercentage.map { share($0) }
                                : share(delivery.revocationPercentage),
                            unitsRevoked(delivery),
                            delivery.revocationHandledAt,
                        ]
                    }
                ).render()
        let notifications =
            detail.notifications.isEmpty
            ? "Store notifications: none"
            : "Store notifications:\n"
                + TextTable(
                    headers: [
                        "RECEIVED", "TYPE", "SUBTYPE", "TRANSACTION", "ENV", "SOURCE", "PROCESSED", "RESULT", "ERROR",
                    ],
                    rows: detail.notifications.map { notification in
                        [
                            notification.receivedAt, notification.type, notification.subtype,
                            notification.transactionID, notification.environment, notification.source,
                            notification.processedAt ?? "not yet", notification.result, notification.error,
                        ]
                    }
                ).render()
        let grant = detail.provisionalGrant.map { grant in
            "Provisional grant:\n"
                + TextTable(
                    headers: [
                        "STATE", "CAUSE", "PRODUCT", "QTY", "JOB", "CREATED", "GRANTED BY GAME", "RESOLVED",
                        "REFUTED BY",
                        "REVOCATION HANDLED",
                    ],
                    rows: [
                        [
                            grant.state.rawValue, grant.cause.rawValue, grant.productID, String(grant.quantity),
                            grant.jobID.map(String.init), grant.createdAt, grant.grantedAt, grant.resolvedAt,
                            grant.refutedBy, grant.revocationHandledAt,
                        ]
                    ]
                ).render()
        }
        let webhooks =
            detail.webhookEvents.isEmpty
            ? "Webhook events: none"
            : "Webhook events:\n"
                + TextTable(
                    headers: ["CREATED", "TYPE", "STATE", "ATTEMPTS", "LAST STATUS", "DELIVERED", "ID", "LAST ERROR"],
                    rows: detail.webhookEvents.map { event in
                        [
                            event.createdAt, event.type, event.state.rawValue, String(event.attempts),
                            event.lastStatus.map(String.init), event.deliveredAt, event.id, event.lastError,
                        ]
                    }
                ).render()
        // Shown only where an assignment owed Apple the player's app account token.
        let tokenCalls =
            detail.appAccountTokenCalls.isEmpty
            ? []
            : [
                "App account token (Set App Account Token):\n"
                    + TextTable(
                        headers: ["TRANSACTION", "ORIGINAL", "STATE", "ATTEMPTS", "SENT", "LAST ERROR"],
                        rows: detail.appAccountTokenCalls.map { call in
                            [
                                call.transactionID, call.originalTransactionID, call.state, String(call.attempts),
                                call.sentAt, call.lastError,
                            ]
                        }
                    ).render()
            ]
        return
            ([header, "Jobs:\n" + jobs, attemptTable, deliveries] + (grant.map { [$0] } ?? []) + [
                notifications, webhooks,
            ] + tokenCalls
            + (detail.subscriptions.isEmpty
                ? [] : ["Subscriptions:\n" + SubscriptionsCommand.text(detail.subscriptions)]))
            .joined(separator: "\n\n")
    }

    /// What a provisional grant means for the game now, for people.
    static func provisionalSummary(_ grant: OrderDetail.ProvisionalGrant) -> String {
        switch grant.state {
        case .unconfirmed:
            "granted before verification ended, "
                + (grant.grantedAt == nil ? "not yet granted by the game" : "granted by the game")
        case .confirmed where grant.replaced:
            "a transaction paid other units than were granted: the real rows are owed and the grant is handed back"
                + (grant.revocationHandledAt == nil
                    ? " (iap.owed_revocations, provisional_replaced)" : "; revocation handled")
        case .confirmed: "a transaction paid the order; nothing is owed twice"
        case .refuted:
            "verification ended \(grant.refutedBy ?? "unpaid")"
                + (grant.grantedAt == nil ? ", the game had not granted it" : "")
                + (grant.revocationHandledAt == nil
                    ? "; revocation owed (iap.owed_revocations, provisional_refuted)" : "; revocation handled")
        case .cancelled:
            "its verification was cancelled or the game closed the order, the player's trust kept"
                + (grant.grantedAt == nil ? ", the game had not granted it" : "")
                + (grant.revocationHandledAt == nil
                    ? "; revocation owed (iap.owed_revocations, provisional_cancelled)" : "; revocation handled")
        }
    }

    /// Units revoked, for people: `2 of 5` (with how many the game handled), `-` when none is.
    static func unitsRevoked(_ delivery: OrderDetail.Delivery) -> String? {
        guard delivery.revokedQuantity > 0 else { return nil }
        return "\(delivery.revokedQuantity) of \(delivery.quantity)"
            + (delivery.revocationHandledQuantity > 0 ? ", \(delivery.revocationHandledQuantity) handled" : "")
    }

    /// The offer a purchase was made under, for people: `offer_code LAUNCH2026`, a purchase option after a slash.
    static func offer(_ delivery: OrderDetail.Delivery) -> String? {
        let parts = [delivery.offerText, delivery.purchaseOptionID.map { "option \($0)" }].compactMap { $0 }
        return parts.isEmpty ? nil : parts.joined(separator: " / ")
    }

    /// A revocation's share for people: `all`, or a prorated refund's percentage such as `37.5%`.
    static func share(_ thousandths: Int?) -> String {
        guard let thousandths else { return "all" }
        let whole = thousandths / 1000
        let fraction = thousandths % 1000
        guard fraction != 0 else { return "\(whole)%" }
        var decimals = String(fraction)
        decimals = String(repeating: "0", count: 3 - decimals.count) + decimals
        while decimals.hasSuffix("0") { decimals.removeLast() }
        return "\(whole).\(decimals)%"
    }
}

import ReceiptdCore

/// `GET /player?id=USER`: the user's orders (`#orders`, rows `tr[data-order-id]`), owed deliveries
/// (`#owed-deliveries`), owed revocations (`#owed-revocations`), trust (`#trust`), unclaimed payments from their
/// receipts (`#unclaimed`), suspicious-receipt flags (`#suspicious`), what they paid per currency (`#spent`) and
/// the stores' refund requests about their purchases (`#refund-requests`, answered on the refunds page) and their
/// subscriptions (`#subscriptions`, rows `tr[data-subscription-id]`, each with its periods and state history).
package enum PlayerPage {
    /// The page.
    package static func page(_ player: PlayerDetail, session: ConsoleSession? = nil) -> ConsolePage {
        ConsolePage(
            title: "Player \(player.userID)",
            section: .search,
            body: """
                <p>User id <code id="player-id">\(player.userID)</code></p>
                <h2>Orders</h2>
                \(orders(player))
                <h2>Owed deliveries</h2>
                \(ledger(player.owedDeliveries, id: "owed-deliveries", time: "delivered", empty: "Nothing is owed."))
                <h2>Owed revocations</h2>
                \(ledger(player.owedRevocations, id: "owed-revocations", time: "revoked", empty: "Nothing to take back."))
                <h2>Trust</h2>
                \(trust(player.trust))
                <h2>Unclaimed payments from their receipts</h2>
                \(unclaimed(player.unclaimed))
                <h2>Suspicious receipts</h2>
                \(suspicious(player.suspicious))
                <h2>Paid</h2>
                \(spent(player.spent))
                <h2>Refund requests</h2>
                \(RefundsPage.table(player.refundRequests, session: session, withUser: false))
                <h2>Subscriptions</h2>
                \(subscriptions(player.subscriptions))
                """
        )
    }

    /// Each subscription: its state and entitlement, then its periods (the order each paid, granted or owed) and the
    /// states it went through. The order page shows the same for the subscription an order started or paid.
    static func subscriptions(_ subscriptions: [SubscriptionSummary]) -> HTML {
        let rows = subscriptions.map { subscription -> HTML in
            let periods = subscription.periods.enumerated().map { index, period -> HTML in
                let state = period.revokedAt != nil ? "revoked" : period.grantedAt != nil ? "granted" : "owed"
                return """
                    \(index > 0 ? "<br>" : "" as HTML)\(ConsoleMarkup.orderLink(period.orderID)) \
                    \(ConsoleMarkup.time(period.periodStart))–\(ConsoleMarkup.time(period.periodEnd)) \(state)
                    """
            }
            let history = subscription.history.enumerated().map { index, change -> HTML in
                """
                \(index > 0 ? "<br>" : "" as HTML)\(ConsoleMarkup.time(change.at)) \(change.state)\
                \(change.autoRenew ? "" : " (auto-renew off)")
                """
            }
            return """
                <tr data-subscription-id="\(subscription.subscriptionID)"><td class="id">\(subscription.subscriptionID)</td>\
                <td>\(subscription.productID)\(subscription.renewsTo.map { " → " + $0 })</td>\
                <td class="state">\(subscription.state)</td><td>\(ConsoleMarkup.time(subscription.entitledUntil))</td>\
                <td>\(subscription.autoRenew ? "on" : "off")</td><td>\(subscription.ownership)</td>\
                <td class="periods">\(periods)</td><td class="history">\(history)</td></tr>
                """
        }
        return ConsoleMarkup.table(
            id: "subscriptions",
            headers: [
                "subscription", "product", "state", "entitled until", "auto-renew", "ownership", "periods", "history",
            ],
            rows: rows,
            empty: "No subscriptions."
        )
    }

    /// The ledger's prices of the player's own purchases, per currency, before refunds.
    private static func spent(_ totals: [PlayerDetail.Spending]) -> HTML {
        let rows = totals.map { total -> HTML in
            """
            <tr data-currency="\(total.currency)"><td>\(total.currency)</td><td>\(total.total)</td>\
            <td>\(total.purchases)</td></tr>
            """
        }
        return ConsoleMarkup.table(
            id: "spent",
            headers: ["currency", "total before refunds", "purchases"],
            rows: rows,
            empty: "No purchase with a price (verifyReceipt answers state none)."
        )
    }

    private static func orders(_ player: PlayerDetail) -> HTML {
        let rows = player.orders.map { order -> HTML in
            """
            <tr data-order-id="\(order.orderID)"><td>\(ConsoleMarkup.orderLink(order.orderID))</td>\
            <td>\(order.status)</td><td>\(ConsoleMarkup.text(order.outcome))</td><td>\(order.productID)</td>\
            <td>\(order.quantity)</td><td>\(order.deliveredQuantity)</td><td>\(ConsoleMarkup.time(order.createdAt))</td></tr>
            """
        }
        let more: HTML =
            player.moreOrders
            ? "<p id=\"more-orders\">Only the newest \(player.orders.count) orders are listed.</p>" : .empty
        let table = ConsoleMarkup.table(
            id: "orders",
            headers: ["order", "status", "outcome", "product", "quantity", "delivered", "created"],
            rows: rows,
            empty: "No orders."
        )
        return "\(table)\(more)"
    }

    private static func ledger(_ rows: [PlayerDetail.LedgerRow], id: String, time: String, empty: String) -> HTML {
        let cells = rows.map { row -> HTML in
            """
            <tr data-transaction-id="\(row.transactionID)"><td class="id">\(row.transactionID)</td>\
            <td>\(ConsoleMarkup.orderLink(row.orderID))</td><td>\(row.productID)</td><td>\(row.quantity)</td>\
            <td>\(ConsoleMarkup.time(row.at))</td><td>\(ConsoleMarkup.text(row.reason))</td></tr>
            """
        }
        return ConsoleMarkup.table(
            id: id,
            headers: ["transaction", "order", "product", "quantity", time, "reason"],
            rows: cells,
            empty: empty
        )
    }

    private static func trust(_ levels: [UserTrust]) -> HTML {
        let rows = levels.map { level -> HTML in
            """
            <tr data-store="\(level.store.rawValue)"><td>\(level.store.rawValue)</td>\
            <td>\(level.level.isTrusted ? "trusted" : "untrusted")\(level.initial ? " (initial)" : "")</td>\
            <td>\(level.streak)</td><td>\(ConsoleMarkup.time(level.changedAt))</td><td>\(ConsoleMarkup.text(level.reason))</td>\
            <td>\(ConsoleMarkup.orderLink(level.orderID))</td><td>\(level.unconfirmedGrants)</td></tr>
            """
        }
        return ConsoleMarkup.table(
            id: "trust",
            headers: ["store", "level", "streak", "changed", "reason", "order", "unconfirmed grants"],
            rows: rows,
            empty: "No trust level recorded."
        )
    }

    private static func unclaimed(_ payments: [UnclaimedPayment]) -> HTML {
        let rows = payments.map { payment -> HTML in
            """
            <tr data-transaction-id="\(payment.transactionID)">\
            <td><a class="id" href="\(ConsoleLinks.unclaimedPayment(payment.transactionID))">\(payment.transactionID)</a></td>\
            <td>\(payment.store)</td><td>\(payment.productID)</td><td>\(payment.quantity)</td>\
            <td>\(ConsoleMarkup.orderLink(payment.orderID))</td><td>\(ConsoleMarkup.time(payment.firstSeenAt))</td>\
            <td>\(ConsoleMarkup.orderLink(payment.assignedOrderID))</td></tr>
            """
        }
        return ConsoleMarkup.table(
            id: "unclaimed",
            headers: ["transaction", "store", "product", "quantity", "found by order", "first seen", "assigned to"],
            rows: rows,
            empty: "No unclaimed payments."
        )
    }

    private static func suspicious(_ flags: [PlayerDetail.SuspiciousReceipt]) -> HTML {
        let rows = flags.map { flag -> HTML in
            """
            <tr><td>\(ConsoleMarkup.time(flag.seenAt))</td><td>\(flag.jobID)</td>\
            <td>\(ConsoleMarkup.orderLink(flag.orderID))</td><td class="id">\(flag.originalTransactionID)</td>\
            <td>\(ConsoleMarkup.playerLink(flag.ownerUserID))</td><td>\(ConsoleMarkup.orderLink(flag.ownerOrderID))</td></tr>
            """
        }
        return ConsoleMarkup.table(
            id: "suspicious",
            headers: ["seen", "job", "order", "original transaction", "first owner", "owner's order"],
            rows: rows,
            empty: "No suspicious receipts."
        )
    }
}

import ReceiptdCore

/// `GET /unclaimed` (filters `store`, `user`, `state`=unassigned|all, `transaction_id`): `<table id="unclaimed">`
/// of rows `tr[data-transaction-id]`, each unassigned one with a form assigning it to an order (`POST
/// /actions/assign`: `transaction_id`, a text input `order_id`, button class `assign`; operators only).
package enum UnclaimedPage {
    /// The page of `payments`, listed by `filter`.
    package static func page(
        _ payments: [UnclaimedPayment],
        filter: UnclaimedFilter,
        session: ConsoleSession,
        flash: String? = nil
    ) -> ConsolePage {
        let rows = payments.map { payment -> HTML in
            """
            <tr data-transaction-id="\(payment.transactionID)"><td class="id">\(payment.transactionID)</td>\
            <td>\(payment.store)</td><td>\(payment.productID)</td><td>\(payment.quantity)</td>\
            <td>\(ConsoleMarkup.time(payment.purchaseDate))</td><td>\(ConsoleMarkup.text(payment.environment))</td>\
            <td>\(ConsoleMarkup.playerLink(payment.userID))</td><td>\(ConsoleMarkup.orderLink(payment.orderID))</td>\
            <td>\(ConsoleMarkup.time(payment.firstSeenAt))</td><td>\(ConsoleMarkup.time(payment.acknowledgeBy))</td>\
            <td>\(assignment(payment, session: session))</td></tr>
            """
        }
        return ConsolePage(
            title: "Unclaimed payments",
            section: .unclaimed,
            body: """
                \(filterForm(filter))
                \(ConsoleMarkup.table(id: "unclaimed", headers: ["transaction", "store", "product", "quantity", "purchased", "environment", "user", "found by order", "first seen", "refunded unless assigned by", "assign"], rows: rows, empty: "No unclaimed payments match."))
                """,
            flash: flash
        )
    }

    private static func assignment(_ payment: UnclaimedPayment, session: ConsoleSession) -> HTML {
        if let assigned = payment.assignedOrderID {
            return "assigned to \(ConsoleMarkup.orderLink(assigned)) \(ConsoleMarkup.time(payment.assignedAt))"
        }
        guard session.role == .operator else { return "–" }
        return """
            <form class="action assign-form" method="post" action="/actions/assign">\(ConsoleLayout.csrfField(session))\
            <input type="hidden" name="transaction_id" value="\(payment.transactionID)">\
            <input type="text" name="order_id" required placeholder="order id" aria-label="Order id">\
            <button type="submit" class="assign">Assign</button></form>
            """
    }

    private static func filterForm(_ filter: UnclaimedFilter) -> HTML {
        func option(_ value: String, _ label: String, selected: Bool) -> HTML {
            "<option value=\"\(value)\"\(selected ? HTML(" selected") : .empty)>\(label)</option>"
        }
        return """
            <form id="unclaimed-filter" class="filter" method="get" action="/unclaimed">
            <label>store <select name="store">\(option("", "both", selected: filter.store == nil))\
            \(option("apple", "apple", selected: filter.store == "apple"))\
            \(option("google", "google", selected: filter.store == "google"))</select></label>
            <label>user <input type="text" name="user" value="\(filter.userID ?? "")"></label>
            <label>state <select name="state">\(option("unassigned", "unassigned", selected: !filter.includeAssigned))\
            \(option("all", "all", selected: filter.includeAssigned))</select></label>
            <button type="submit">Filter</button>
            </form>
            """
    }
}

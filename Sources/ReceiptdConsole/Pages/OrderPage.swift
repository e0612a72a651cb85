import ReceiptdCore

/// `GET /order?id=ORDER`: the order's status (`#order-status`), outcome (`#order-outcome`), the retry and cancel
/// forms (`#retry`, `#cancel`, operators only), `<ol id="timeline">` of `li[data-kind]`, oldest first, each
/// with `<time datetime>`, and the subscription it started or paid a period of (`#subscriptions`), if any.
package enum OrderPage {
    /// The page of `timeline`, with the action forms when `session` may act.
    package static func page(_ timeline: OrderTimeline, session: ConsoleSession, flash: String? = nil) -> ConsolePage {
        let order = timeline.detail.order
        let events = timeline.events.map { event -> HTML in
            let fields = event.fields.map { field -> HTML in
                "<dt>\(field.name)</dt><dd data-field=\"\(field.name)\">\(field.value)</dd>"
            }
            let error: HTML = event.error.map { "<p class=\"error\">\($0)</p>" } ?? .empty
            return """
                <li data-kind="\(event.kind.rawValue)">\(ConsoleMarkup.time(event.at)) <b>\(event.title)</b>\
                \(fields.isEmpty ? HTML.empty : "<dl>\(fields)</dl>")\(error)</li>
                """
        }
        let actions: HTML =
            session.role == .operator
            ? """
            <div class="actions">\
            \(ConsoleMarkup.actionForm("/actions/retry", fields: [("order_id", order.orderID)], button: "Retry", buttonClass: "retry", id: "retry", session: session))\
            \(ConsoleMarkup.actionForm("/actions/cancel", fields: [("order_id", order.orderID)], button: "Cancel the active job", buttonClass: "cancel", id: "cancel", session: session))\
            </div>
            """
            : .empty
        return ConsolePage(
            title: "Order \(order.orderID)",
            section: .search,
            body: """
                <dl class="order-summary">
                <dt>order id</dt><dd class="id" id="order-id">\(order.orderID)</dd>
                <dt>user</dt><dd id="order-user">\(ConsoleMarkup.playerLink(order.userID))</dd>
                <dt>product</dt><dd>\(order.productID) × \(order.quantity)</dd>
                <dt>delivered</dt><dd id="order-delivered">\(order.deliveredQuantity)</dd>
                <dt>status</dt><dd id="order-status">\(timeline.status)</dd>
                <dt>outcome</dt><dd id="order-outcome">\(order.outcome ?? "not settled")</dd>
                <dt>settled</dt><dd>\(ConsoleMarkup.time(order.outcomeAt))</dd>
                </dl>
                \(actions)
                <h2>Timeline</h2>
                <ol id="timeline" class="timeline">
                \(HTML.joined(events, separator: "\n"))
                </ol>
                \(timeline.detail.subscriptions.isEmpty
                    ? HTML.empty : "<h2>Subscription</h2>\n\(PlayerPage.subscriptions(timeline.detail.subscriptions))")
                """,
            flash: flash
        )
    }
}

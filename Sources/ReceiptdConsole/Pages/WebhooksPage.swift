import ReceiptdCore

/// `GET /webhooks` (filter `state`): the endpoint's state and `<table id="webhooks">` of rows `tr[data-event-id]`,
/// each with a replay form (`POST /actions/replay`, field `event_id`, button class `replay`; operators only).
package enum WebhooksPage {
    /// The page of `listing`.
    package static func page(
        _ listing: WebhookListing,
        state: WebhookEventState?,
        session: ConsoleSession,
        flash: String? = nil
    ) -> ConsolePage {
        let rows = listing.events.map { event -> HTML in
            let replay = ConsoleMarkup.actionForm(
                "/actions/replay",
                fields: [("event_id", event.id)],
                button: "Replay",
                buttonClass: "replay",
                session: session
            )
            return """
                <tr data-event-id="\(event.id)"><td class="id">\(event.id)</td><td>\(event.type)</td>\
                <td>\(ConsoleMarkup.orderLink(event.orderID))</td><td>\(ConsoleMarkup.playerLink(event.userID))</td>\
                <td>\(event.state.rawValue)</td><td>\(event.attempts)</td><td>\(event.lastStatus.map { "\($0)" } ?? "–")</td>\
                <td>\(ConsoleMarkup.error(event.lastError))</td><td>\(ConsoleMarkup.time(event.createdAt))</td>\
                <td>\(ConsoleMarkup.time(event.deliveredAt))</td><td>\(replay)</td></tr>
                """
        }
        let endpoint = listing.endpoint
        let options = ([nil] + WebhookEventState.allCases.map { Optional($0) }).map { option -> HTML in
            let value = option?.rawValue ?? ""
            let selected: HTML = option == state ? " selected" : .empty
            return "<option value=\"\(value)\"\(selected)>\(option?.rawValue ?? "any")</option>"
        }
        return ConsolePage(
            title: "Webhooks",
            section: .webhooks,
            body: """
                <p id="webhook-endpoint">Endpoint: \(endpoint.configured ? "configured" : "not configured")\
                \(endpoint.disabled ? HTML(" · disabled (410 Gone) — run receiptd webhooks enable") : .empty)</p>
                <form id="webhooks-filter" class="filter" method="get" action="/webhooks">
                <label>state <select name="state">\(options)</select></label>
                <button type="submit">Filter</button>
                </form>
                \(ConsoleMarkup.table(id: "webhooks", headers: ["event", "type", "order", "user", "state", "attempts", "last status", "last error", "created", "delivered", ""], rows: rows, empty: "No webhook events."))
                """,
            flash: flash
        )
    }
}

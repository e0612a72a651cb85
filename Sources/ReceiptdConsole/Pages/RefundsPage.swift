import ReceiptdCore

/// `GET /refunds` (filter `state`): the stores' refund requests, open ones first by deadline, in
/// `<table id="refund-requests">` of rows `tr[data-request-id]`; each waiting one has a form answering it for the
/// game (`POST /actions/answer-refund`: `request_id`, a select `preference`, a number input `consumed`, button
/// class `answer-refund`; operators only).
package enum RefundsPage {
    /// The page of `requests`.
    package static func page(
        _ requests: [RefundRequestSummary],
        state: RefundRequestState?,
        session: ConsoleSession,
        flash: String? = nil
    ) -> ConsolePage {
        let options = ([nil] + RefundRequestState.allCases.map { Optional($0) }).map { option -> HTML in
            let selected: HTML = option == state ? " selected" : .empty
            return "<option value=\"\(option?.rawValue ?? "")\"\(selected)>\(option?.rawValue ?? "any")</option>"
        }
        return ConsolePage(
            title: "Refund requests",
            section: .refunds,
            body: """
                <p>Apple asks within 12 hours of its signature, Google within 24 hours of the event; the game answers \
                first, the policy when it stays silent.</p>
                <form id="refunds-filter" class="filter" method="get" action="/refunds">
                <label>state <select name="state">\(options)</select></label>
                <button type="submit">Filter</button>
                </form>
                \(table(requests, session: session, withUser: true))
                """,
            flash: flash
        )
    }

    /// `<table id="refund-requests">` of `requests`; the player page leaves the user column out.
    package static func table(_ requests: [RefundRequestSummary], session: ConsoleSession?, withUser: Bool) -> HTML {
        let rows = requests.map { request -> HTML in
            let user: HTML = withUser ? "<td>\(ConsoleMarkup.playerLink(request.userID))</td>" : .empty
            return """
                <tr data-request-id="\(request.requestID)"><td class="id">\(request.requestID)</td>\
                <td>\(request.store.rawValue)</td><td class="id">\(request.transactionID)</td>\
                <td>\(ConsoleMarkup.orderLink(request.orderID))</td>\(user)<td>\(request.state.rawValue)</td>\
                <td>\(ConsoleMarkup.time(request.answerBy))</td><td>\(ConsoleMarkup.text(request.answeredBy?.rawValue))</td>\
                <td>\(ConsoleMarkup.text(request.preference?.rawValue))</td>\
                <td>\(ConsoleMarkup.text(request.consumedMilliunits.map { "\($0)" }))</td>\
                <td>\(ConsoleMarkup.text(request.reason))</td><td>\(ConsoleMarkup.error(request.lastError))</td>\
                <td>\(answerForm(request, session: session))</td></tr>
                """
        }
        let headers =
            ["request", "store", "transaction", "order"] + (withUser ? ["user"] : [])
            + ["state", "answer by", "answered by", "preference", "consumed (m%)", "reason", "last error", "answer"]
        return ConsoleMarkup.table(id: "refund-requests", headers: headers, rows: rows, empty: "No refund requests.")
    }

    /// An operator's answer to a waiting request; nothing for a viewer or a request already answered.
    private static func answerForm(_ request: RefundRequestSummary, session: ConsoleSession?) -> HTML {
        guard let session, session.role == .operator, request.state == .waiting else { return "–" }
        let preferences = RefundPreference.allCases.map { preference -> HTML in
            "<option value=\"\(preference.rawValue)\">\(preference.rawValue)</option>"
        }
        return """
            <form class="action answer-refund-form" method="post" action="/actions/answer-refund">\
            \(ConsoleLayout.csrfField(session))\
            <input type="hidden" name="request_id" value="\(request.requestID)">\
            <select name="preference" aria-label="Preference">\(preferences)</select>\
            <input type="number" name="consumed" min="0" max="100000" placeholder="consumed m%" \
            aria-label="Consumed, thousandths of a percent">\
            <button type="submit" class="answer-refund">Answer</button></form>
            """
    }
}

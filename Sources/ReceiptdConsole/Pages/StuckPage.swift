import ReceiptdCore

/// `GET /stuck`: `iap.stuck_jobs` as `<table id="stuck">`, rows `tr[data-order-id]` (for rows about an order)
/// with retry and cancel forms (buttons class `retry` and `cancel`; operators only).
package enum StuckPage {
    /// The page of `jobs`, `total` of them in all.
    package static func page(
        _ jobs: [QueueStatus.StuckJob],
        total: Int,
        session: ConsoleSession,
        flash: String? = nil
    ) -> ConsolePage {
        let rows = jobs.map { job -> HTML in
            let orderAttribute: HTML = job.orderID.map { " data-order-id=\"\($0)\"" } ?? .empty
            let actions: HTML =
                job.orderID.map { order in
                    """
                    \(ConsoleMarkup.actionForm("/actions/retry", fields: [("order_id", order)], button: "Retry", buttonClass: "retry", session: session))\
                    \(ConsoleMarkup.actionForm("/actions/cancel", fields: [("order_id", order)], button: "Cancel", buttonClass: "cancel", session: session))
                    """
                } ?? .empty
            return """
                <tr\(orderAttribute)><td>\(job.reason)</td><td>\(ConsoleMarkup.orderLink(job.orderID))</td>\
                <td>\(job.jobID.map { "\($0)" } ?? "–")</td><td>\(job.state?.rawValue ?? "–")</td>\
                <td>\(job.stuckSeconds) s</td><td>\(job.attempts)</td><td>\(ConsoleMarkup.text(job.lockedBy))</td>\
                <td>\(ConsoleMarkup.error(job.lastError))</td><td class="actions">\(actions)</td></tr>
                """
        }
        let more: HTML =
            total > jobs.count
            ? "<p id=\"more-stuck\">\(jobs.count) of \(total) are listed, longest stuck first.</p>" : .empty
        return ConsolePage(
            title: "Stuck",
            section: .stuck,
            body: """
                \(ConsoleMarkup.table(id: "stuck", headers: ["reason", "order", "job", "state", "stuck for", "attempts", "daemon", "last error", ""], rows: rows, empty: "Nothing is stuck."))
                \(more)
                """,
            flash: flash
        )
    }
}

import Foundation
import ReceiptdCore

/// `GET /`: the figures `receiptd status` prints (`#figures`), the orders settled per 10 minutes by outcome
/// (`#chart-settled`) and the retries by error class and store (`#chart-retries`) of the last 24 hours. Without
/// JavaScript the charts are tables; `console.js` draws them as SVG from `GET /overview.json` and refreshes
/// everything every 15 seconds.
package enum OverviewPage {
    /// One figure: its key (`data-figure`, the JSON's `key`), its label and its value.
    package struct Figure: Sendable, Codable, Equatable {
        /// `jobs-pending`, `stuck`, … (the element's `data-figure`).
        package var key: String
        /// What it counts.
        package var label: String
        /// The count.
        package var value: Int
    }

    /// What `GET /overview.json` answers: the figures and both charts' data.
    package struct Document: Sendable, Codable, Equatable {
        /// The figures, as the page shows them.
        package var figures: [Figure]
        /// The charts' data.
        package var series: OverviewSeries
    }

    /// The outcomes in the chart's order (its legend and stacking).
    package static let outcomes = ["full", "partial", "no_in_app", "unmatched", "invalid", "failed"]

    /// The page.
    package static func page(status: QueueStatus, series: OverviewSeries, flash: String? = nil) -> ConsolePage {
        ConsolePage(
            title: "Overview",
            section: .overview,
            body: """
                <section class="overview" data-refresh="/overview.json">
                <h2>Now</h2>
                \(figures(status))
                \(daemons(status))
                <h2>Orders settled per 10 minutes, last 24 hours</h2>
                \(settledChart(series))
                <h2>Retries by error class and store, last 24 hours</h2>
                \(retriesChart(series))
                </section>
                """,
            flash: flash
        )
    }

    /// The JSON document of `GET /overview.json`.
    package static func document(status: QueueStatus, series: OverviewSeries) -> Document {
        Document(figures: figureList(status), series: series)
    }

    /// The figures, in the order shown.
    package static func figureList(_ status: QueueStatus) -> [Figure] {
        var figures = JobState.allCases.map { state in
            Figure(key: "jobs-\(state.rawValue)", label: "jobs \(state.rawValue)", value: status.jobs(in: state))
        }
        figures.append(Figure(key: "due-now", label: "due now", value: status.states.first?.dueNow ?? 0))
        figures += status.statuses.map {
            Figure(key: "orders-\($0.status)", label: "orders \($0.status)", value: $0.orders)
        }
        figures += [
            Figure(key: "stuck", label: "stuck", value: status.stuckTotal),
            Figure(key: "recent-failures", label: "failures, 24 h", value: status.recentFailures),
            Figure(
                key: "retries-hour",
                label: "retries, 1 h",
                value: status.retriesLastHour.reduce(0) { $0 + $1.retries }
            ),
            Figure(key: "unclaimed", label: "unclaimed payments", value: status.unclaimedPayments),
            Figure(key: "owed", label: "owed over 10 min", value: status.owedOverTenMinutes),
            Figure(
                key: "revocations-unhandled",
                label: "revocations unhandled over 10 min",
                value: status.revocationsUnhandledOverTenMinutes
            ),
            Figure(key: "overpaid", label: "overpaid orders", value: status.overpaidOrders),
            Figure(key: "suspicious", label: "suspicious receipts, 24 h", value: status.suspiciousReceipts),
            Figure(
                key: "unconfigured",
                label: "waiting for store settings",
                value: status.waitingForStoreConfiguration
            ),
            Figure(
                key: "notifications-unprocessed",
                label: "notifications unprocessed",
                value: status.unprocessedNotifications
            ),
            Figure(
                key: "refunds-late",
                label: "refund requests answered late",
                value: status.refundAnswersLate
            ),
            Figure(
                key: "grants-unconfirmed",
                label: "provisional grants unconfirmed",
                value: status.provisionalGrants.unconfirmed
            ),
            Figure(key: "webhooks-pending", label: "webhook events pending", value: status.webhooks.pending),
            Figure(key: "webhooks-failed", label: "webhook events failed", value: status.webhooks.failed),
            Figure(key: "daemons-alive", label: "daemons alive", value: status.daemons.filter(\.alive).count),
        ]
        return figures
    }

    private static func figures(_ status: QueueStatus) -> HTML {
        let items = figureList(status).map { figure -> HTML in
            "<div class=\"figure\" data-figure=\"\(figure.key)\"><b>\(figure.value)</b><span>\(figure.label)</span></div>"
        }
        return "<div id=\"figures\" class=\"figures\">\(items)</div>"
    }

    private static func daemons(_ status: QueueStatus) -> HTML {
        let rows = status.daemons.map { daemon -> HTML in
            """
            <tr><td class="id">\(daemon.daemon)</td><td>\(daemon.alive ? "alive" : "silent")</td>\
            <td>\(daemon.heartbeatAgeSeconds) s</td><td>\(daemon.inFlight)</td>\
            <td>\(daemon.pausedAPIs.joined(separator: ", "))</td></tr>
            """
        }
        return ConsoleMarkup.table(
            id: "daemons",
            headers: ["daemon", "state", "heartbeat", "in flight", "paused APIs"],
            rows: rows,
            empty: "No daemon has heartbeated."
        )
    }

    private static func settledChart(_ series: OverviewSeries) -> HTML {
        let buckets = Dictionary(grouping: series.settled, by: \.bucket).sorted { $0.key > $1.key }
        let rows = buckets.map { bucket, counts -> HTML in
            let cells = outcomes.map { outcome -> HTML in
                "<td>\(counts.first { $0.outcome == outcome }?.orders ?? 0)</td>"
            }
            return "<tr><td>\(ConsoleMarkup.time(bucket))</td>\(cells)</tr>"
        }
        let totals = outcomes.map { outcome -> HTML in
            "<td>\(series.settled.filter { $0.outcome == outcome }.reduce(0) { $0 + $1.orders })</td>"
        }
        let head = outcomes.map { outcome -> HTML in "<th scope=\"col\">\(outcome)</th>" }
        return """
            <figure id="chart-settled" class="chart" data-since="\(series.since)" data-now="\(series.now)">
            <table class="chart-data">
            <thead><tr><th scope="col">10 minutes from</th>\(head)</tr></thead>
            <tbody>
            <tr class="total"><th scope="row">24 hours</th>\(totals)</tr>
            \(HTML.joined(rows, separator: "\n"))
            </tbody>
            </table>
            </figure>
            """
    }

    private static func retriesChart(_ series: OverviewSeries) -> HTML {
        let rows = series.retries.map { retry -> HTML in
            "<tr><td>\(retry.errorClass)</td><td>\(retry.store)</td><td>\(retry.retries)</td><td>\(retry.jobs)</td></tr>"
        }
        let table: HTML =
            rows.isEmpty
            ? "<p class=\"empty\">No retries in the last 24 hours.</p>"
            : """
            <table class="chart-data">
            <thead><tr><th scope="col">error class</th><th scope="col">store</th><th scope="col">retries</th>\
            <th scope="col">jobs</th></tr></thead>
            <tbody>\(HTML.joined(rows, separator: "\n"))</tbody>
            </table>
            """
        return "<figure id=\"chart-retries\" class=\"chart\">\(table)</figure>"
    }
}

import Foundation
import ReceiptdCore

/// `GET /search?q=TEXT` when the text found nothing (`#no-results`) or several things (`#results`); one thing
/// found is answered with a redirect to its page instead.
package enum SearchPage {
    /// The page for `query` and what it found.
    package static func page(query: String, hits: [SearchHit]) -> ConsolePage {
        let body: HTML
        if query.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            body = "<p id=\"search-help\">Type a user id, an order id, a transaction id or a purchase token.</p>"
        } else if hits.isEmpty {
            body = "<p id=\"no-results\">Nothing is named <code>\(query)</code>.</p>"
        } else {
            let items = hits.map { hit -> HTML in
                "<li data-kind=\"\(hit.kind.rawValue)\"><a href=\"\(ConsoleLinks.hit(hit))\">\(label(hit))</a></li>"
            }
            body = "<ul id=\"results\">\(items)</ul>"
        }
        return ConsolePage(title: "Search", section: .search, body: body)
    }

    /// What a hit's link says: what it is, and what the text matched.
    package static func label(_ hit: SearchHit) -> String {
        switch hit.kind {
        case .player:
            return "player \(hit.id)"
        case .order:
            let outcome = hit.outcome ?? "not settled"
            return "order \(hit.id) of user \(hit.userID ?? "?"): \(hit.productID ?? "?"), \(outcome) (\(hit.matched))"
        case .unclaimedPayment:
            return "unclaimed payment \(hit.id) of \(hit.productID ?? "?") (\(hit.matched))"
        }
    }
}

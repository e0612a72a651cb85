import Foundation
import ReceiptdCore

/// Pieces every page is built from: tables, times, links, action forms. All values go through `HTML`
/// interpolation, so they are escaped.
package enum ConsoleMarkup {
    /// A table with `id`, its header cells, and `rows` (each a complete `<tr>`); with no rows, one row saying
    /// `empty` (the table is always there, so its id is).
    package static func table(id: String, headers: [String], rows: [HTML], empty: String) -> HTML {
        let rows =
            rows.isEmpty ? ["<tr class=\"empty\"><td colspan=\"\(headers.count)\">\(empty)</td></tr>"] : rows
        let head = headers.map { header -> HTML in "<th scope=\"col\">\(header)</th>" }
        return """
            <table id="\(id)">
            <thead><tr>\(head)</tr></thead>
            <tbody>
            \(HTML.joined(rows, separator: "\n"))
            </tbody>
            </table>
            """
    }

    /// A `<time>` for an ISO-8601 instant (its `datetime` attribute the same text); a dash for `nil`.
    package static func time(_ instant: String?) -> HTML {
        guard let instant, !instant.isEmpty else { return "–" }
        return "<time datetime=\"\(instant)\">\(display(instant))</time>"
    }

    /// `2026-11-23T00:08:49Z` as `2026-11-23 00:08:49`.
    package static func display(_ instant: String) -> String {
        instant.replacingOccurrences(of: "T", with: " ").replacingOccurrences(of: "Z", with: "")
    }

    /// A link to the order page of `orderID`, the id as its text.
    package static func orderLink(_ orderID: String?) -> HTML {
        guard let orderID else { return "–" }
        return "<a class=\"id\" href=\"\(ConsoleLinks.order(orderID))\">\(orderID)</a>"
    }

    /// A link to the player page of `userID`, the id as its text.
    package static func playerLink(_ userID: String?) -> HTML {
        guard let userID else { return "–" }
        return "<a class=\"id\" href=\"\(ConsoleLinks.player(userID))\">\(userID)</a>"
    }

    /// `text`, or a dash when it is `nil` or empty.
    package static func text(_ text: String?) -> HTML {
        guard let text, !text.isEmpty else { return "–" }
        return "\(text)"
    }

    /// A store's error text, marked as an error; a dash when there is none.
    package static func error(_ text: String?) -> HTML {
        guard let text, !text.isEmpty else { return "–" }
        return "<span class=\"error\">\(text)</span>"
    }

    /// A `POST` form to `action` with hidden `fields`, the session's CSRF token and a button of `buttonClass`
    /// (the form's `id` when given); nothing for a viewer, who sees no action forms.
    package static func actionForm(
        _ action: String,
        fields: [(String, String)],
        button: String,
        buttonClass: String,
        id: String? = nil,
        session: ConsoleSession
    ) -> HTML {
        guard session.role == .operator else { return .empty }
        let hidden = fields.map { name, value -> HTML in
            "<input type=\"hidden\" name=\"\(name)\" value=\"\(value)\">"
        }
        let formID: HTML = id.map { " id=\"\($0)\"" } ?? .empty
        return """
            <form\(formID) class="action" method="post" action="\(action)">\(ConsoleLayout.csrfField(session))\(hidden)\
            <button type="submit" class="\(buttonClass)">\(button)</button></form>
            """
    }
}

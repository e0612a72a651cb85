/// A fragment of HTML whose interpolated values are escaped unless they are `HTML` themselves: text from the
/// database or the request (store errors, ids, user names) cannot become markup, whoever writes the page.
package struct HTML: Sendable, Equatable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// The markup.
    package private(set) var rendered: String

    /// Markup taken as it is: for literals written in the source only.
    package init(stringLiteral value: String) { rendered = value }

    /// Markup built by interpolation.
    package init(stringInterpolation: Interpolation) { rendered = stringInterpolation.rendered }

    /// Markup from trusted parts; nothing is escaped.
    package init(trusted markup: String) { rendered = markup }

    /// The markup.
    package var description: String { rendered }

    /// Nothing.
    package static let empty: HTML = ""

    /// `parts` one after the other.
    package static func joined(_ parts: some Sequence<HTML>, separator: HTML = .empty) -> HTML {
        HTML(trusted: parts.map(\.rendered).joined(separator: separator.rendered))
    }

    /// `text` with `&`, `<`, `>`, `"` and `'` escaped: safe in element content and in quoted attributes.
    package static func escape(_ text: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&#39;"
            default: escaped.unicodeScalars.append(character)
            }
        }
        return escaped
    }

    /// Interpolation that escapes every value but `HTML`.
    package struct Interpolation: StringInterpolationProtocol {
        var rendered = ""

        package init(literalCapacity: Int, interpolationCount: Int) {
            rendered.reserveCapacity(literalCapacity + 16 * interpolationCount)
        }

        package mutating func appendLiteral(_ literal: String) { rendered += literal }

        package mutating func appendInterpolation(_ html: HTML) { rendered += html.rendered }

        package mutating func appendInterpolation(_ text: String) { rendered += HTML.escape(text) }

        package mutating func appendInterpolation(_ text: String?) { rendered += HTML.escape(text ?? "") }

        package mutating func appendInterpolation<Number: BinaryInteger>(_ number: Number) { rendered += "\(number)" }

        package mutating func appendInterpolation(_ value: some CustomStringConvertible) {
            rendered += HTML.escape(value.description)
        }

        package mutating func appendInterpolation(_ parts: [HTML]) {
            rendered += parts.map(\.rendered).joined()
        }
    }
}

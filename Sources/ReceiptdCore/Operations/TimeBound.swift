import Foundation

/// A `--since` value: an ISO-8601 instant, or a duration back from the database's clock.
package enum TimeBound: Sendable, Equatable {
    /// A fixed instant.
    case instant(Date)
    /// This many seconds before the database's `now()`, so the operator's clock does not matter.
    case secondsAgo(Int)

    /// Why a `--since` value could not be read.
    package struct ParseError: Error, CustomStringConvertible, Sendable {
        /// What is wrong, and what would be accepted.
        package var description: String
    }

    private static let unitSeconds: [Character: Int] = ["s": 1, "m": 60, "h": 3_600, "d": 86_400, "w": 604_800]

    /// Reads `90m`, `2h`, `7d` (also `s`, `w`), or an ISO-8601 time with a zone such as `2026-11-20T10:00:00Z`
    /// or a date such as `2026-11-20` (midnight UTC).
    package init(parsing text: String) throws {
        let text = text.trimmingCharacters(in: .whitespaces)
        if let unit = text.last, let seconds = Self.unitSeconds[unit],
            let count = Int(text.dropLast()), count >= 0, text.dropLast().allSatisfy(\.isASCII)
        {
            let (total, overflow) = count.multipliedReportingOverflow(by: seconds)
            guard !overflow else { throw ParseError(description: "'\(text)' is too long ago") }
            self = .secondsAgo(total)
            return
        }
        if let date = Self.iso8601(text) {
            self = .instant(date)
            return
        }
        throw ParseError(
            description:
                "'\(text)' is neither a duration like 90m, 2h or 7d nor an ISO-8601 time like 2026-11-20T10:00:00Z"
        )
    }

    private static func iso8601(_ text: String) -> Date? {
        var variants: [ISO8601DateFormatter.Options] = [
            [.withInternetDateTime], [.withInternetDateTime, .withFractionalSeconds],
        ]
        // The date-only format also accepts a longer text and drops the rest, zone-less times included.
        if text.count == "2026-11-20".count { variants.append([.withFullDate]) }
        for options in variants {
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = options
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    /// The instant as ISO-8601 text for a `$n::timestamptz` parameter, or `nil` for a relative bound.
    var instantText: String? {
        guard case .instant(let date) = self else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }

    /// The seconds for a relative bound, or `nil` for an instant.
    var secondsAgoValue: Int? {
        guard case .secondsAgo(let seconds) = self else { return nil }
        return seconds
    }
}

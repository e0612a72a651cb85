import Foundation

/// A refusal that an operator can act on, as opposed to a database or connection failure.
package enum OperatorError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No order or job matches what was asked for.
    case notFound(String)
    /// The order is in no state for it: already full, already has an active job, nothing to cancel, bad input.
    case refused(String)

    /// The message for stderr.
    package var description: String {
        switch self {
        case .notFound(let message), .refused(let message): message
        }
    }

    /// Translates the SQLSTATEs the operator functions raise; `nil` for any other error.
    init?(_ error: PostgresError) {
        let message = Self.firstLine(of: error.message)
        switch error.sqlState {
        case "P0002": self = .notFound(message)
        // 55000 from retry_order, 22023 when enqueue_receipt refuses its input.
        case "55000", "22023": self = .refused(message)
        default: return nil
        }
    }

    /// The server's message without libpq's "ERROR:" prefix and the CONTEXT lines after it.
    private static func firstLine(of message: String) -> String {
        let line = message.split(separator: "\n").first.map(String.init) ?? message
        let trimmed = line.hasPrefix("ERROR:") ? String(line.dropFirst("ERROR:".count)) : line
        return trimmed.trimmingCharacters(in: .whitespaces)
    }
}

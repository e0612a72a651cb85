#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How log lines are written (`RECEIPTD_LOG_FORMAT`).
package enum LogFormat: String, Sendable, Equatable, CaseIterable {
    /// One JSON object per line on stdout, for journald, Loki, Elasticsearch and friends.
    case json
    /// swift-log's human-readable lines on stderr, for terminals.
    case text

    /// The format to use when none was asked for: text for a person at a terminal, JSON for everything else.
    package static func automatic(standardOutputIsTerminal: Bool = isatty(STDOUT_FILENO) != 0) -> LogFormat {
        standardOutputIsTerminal ? .text : .json
    }
}

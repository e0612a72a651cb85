import Foundation
import Logging

/// A swift-log handler that writes one JSON object per line:
/// `{"timestamp":"2025-01-31T12:00:00.123Z","level":"info","label":"receiptd","message":"…","job_id":"42",…}`.
///
/// Metadata is flattened into top-level string fields (`order_id`, `job_id`, `attempt`, …), nested
/// dictionaries as `outer.inner`. A metadata key that would shadow one of the fixed fields is
/// written as `metadata.<key>` instead, so every line stays a valid object with unique keys.
package struct JSONLogHandler: LogHandler {
    /// The fields every line starts with, in this order.
    static let fixedFields: Set<String> = ["timestamp", "level", "label", "message"]

    /// The logger's label.
    package let label: String
    /// Lines below this level are dropped (by `Logger`, before they reach the handler).
    package var logLevel: Logger.Level
    /// Metadata set on the logger itself.
    package var metadata: Logger.Metadata = [:]
    /// Adds contextual metadata to every line.
    package var metadataProvider: Logger.MetadataProvider?
    private let sink: LogSink
    private let clock: @Sendable () -> Date

    /// Creates a handler writing to `sink` (standard output by default); `clock` is for tests.
    package init(
        label: String,
        logLevel: Logger.Level = .info,
        sink: LogSink = .standardOutput,
        metadataProvider: Logger.MetadataProvider? = LoggingSystem.metadataProvider,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.label = label
        self.logLevel = logLevel
        self.sink = sink
        self.metadataProvider = metadataProvider
        self.clock = clock
    }

    /// Gets or sets one metadata value of the logger.
    package subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes the event as one JSON line.
    package func log(event: LogEvent) {
        // Precedence, lowest first: logger metadata, provider, the call's own metadata.
        var merged = metadata
        if let provided = metadataProvider?.get() { merged.merge(provided) { $1 } }
        if let own = event.metadata { merged.merge(own) { $1 } }
        if let error = event.error, merged["error"] == nil { merged["error"] = "\(error)" }
        sink.write(
            Self.line(
                timestamp: clock(),
                level: event.level,
                label: label,
                message: event.message.description,
                metadata: merged
            )
        )
    }

    /// Renders one line, trailing newline included.
    static func line(
        timestamp: Date,
        level: Logger.Level,
        label: String,
        message: String,
        metadata: Logger.Metadata
    ) -> String {
        var fields: [(String, String)] = []
        for (key, value) in metadata { flatten(value, key: key, into: &fields) }
        fields.sort { $0.0 < $1.0 }
        var line = "{"
        line.appendJSONField("timestamp", iso8601(timestamp), first: true)
        line.appendJSONField("level", level.rawValue)
        line.appendJSONField("label", label)
        line.appendJSONField("message", message)
        for (key, value) in fields {
            line.appendJSONField(fixedFields.contains(key) ? "metadata.\(key)" : key, value)
        }
        line += "}\n"
        return line
    }

    private static func flatten(_ value: Logger.MetadataValue, key: String, into fields: inout [(String, String)]) {
        switch value {
        case .string(let text): fields.append((key, text))
        case .stringConvertible(let convertible): fields.append((key, convertible.description))
        case .array: fields.append((key, value.description))
        case .dictionary(let dictionary):
            for (inner, innerValue) in dictionary { flatten(innerValue, key: "\(key).\(inner)", into: &fields) }
        }
    }
}

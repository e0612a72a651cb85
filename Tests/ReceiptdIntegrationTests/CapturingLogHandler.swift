import Logging
import Synchronization

/// Keeps every log line (message and metadata) so tests can check what the daemon said — and did not say.
struct CapturingLogHandler: LogHandler {
    final class Lines: Sendable {
        let storage = Mutex<[String]>([])
        var all: [String] { storage.withLock { $0 } }
    }

    let lines: Lines
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        lines.storage.withLock { $0.append("\(event.level) \(event.message) \(merged)") }
    }

    /// A logger writing into `lines`.
    static func logger(into lines: Lines) -> Logger {
        Logger(label: "test") { _ in CapturingLogHandler(lines: lines) }
    }
}

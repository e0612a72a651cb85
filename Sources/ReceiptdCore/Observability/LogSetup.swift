import Logging

/// Process-wide logging: JSON lines or text, at one level.
package enum LogSetup {
    /// Bootstraps swift-log; call once, before the first `Logger` is made.
    ///
    /// - Parameters:
    ///   - format: `nil` picks text when stdout is a terminal and JSON otherwise.
    ///   - level: lines below it are dropped.
    package static func bootstrap(format: LogFormat?, level: Logger.Level) {
        let format = format ?? LogFormat.automatic()
        LoggingSystem.bootstrap { label in makeHandler(format: format, label: label, level: level) }
    }

    /// The handler `bootstrap` installs for one logger.
    package static func makeHandler(format: LogFormat, label: String, level: Logger.Level) -> any LogHandler {
        switch format {
        case .json:
            return JSONLogHandler(label: label, logLevel: level)
        case .text:
            // stderr, as before the JSON format existed: stdout stays free for command output.
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

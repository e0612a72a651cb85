import Foundation
import Synchronization

/// A status line rewritten in place on a terminal; silent when disabled (not a TTY, or JSON output).
final class ProgressLine: Sendable {
    private let enabled: Bool
    private let shown = Mutex(false)

    init(enabled: Bool) {
        self.enabled = enabled
    }

    /// Replaces the line with `text`.
    func show(_ text: String) {
        guard enabled else { return }
        shown.withLock { $0 = true }
        FileHandle.standardOutput.write(Data("\r\u{1B}[K\(text)".utf8))
    }

    /// Clears the line so normal output starts on a clean one.
    func finish() {
        guard enabled, shown.withLock({ $0 }) else { return }
        FileHandle.standardOutput.write(Data("\r\u{1B}[K".utf8))
    }
}

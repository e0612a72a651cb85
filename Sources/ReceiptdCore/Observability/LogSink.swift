import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a log handler puts its finished lines; each call gets one whole line, newline included.
package struct LogSink: Sendable {
    private let writeLine: @Sendable (String) -> Void

    /// A sink that hands every line to `write` (tests collect them this way).
    package init(_ write: @escaping @Sendable (String) -> Void) {
        self.writeLine = write
    }

    /// Writes one line.
    package func write(_ line: String) { writeLine(line) }

    /// Standard output. One lock around each line, so lines from many threads never interleave.
    package static let standardOutput = LogSink { line in
        outputLock.withLock { _ in
            var line = line
            line.withUTF8 { writeAll($0, to: STDOUT_FILENO) }
        }
    }

    private static let outputLock = Mutex(())
}

/// Writes every byte, retrying short writes and EINTR; gives up silently, as there is nowhere left to report to.
private func writeAll(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
    guard let base = bytes.baseAddress else { return }
    var offset = 0
    while offset < bytes.count {
        #if canImport(Glibc)
        let written = Glibc.write(descriptor, base + offset, bytes.count - offset)
        #else
        let written = Darwin.write(descriptor, base + offset, bytes.count - offset)
        #endif
        if written > 0 {
            offset += written
        } else if written < 0 && errno == EINTR {
            continue
        } else {
            return
        }
    }
}

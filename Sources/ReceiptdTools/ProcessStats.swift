import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// CPU time and peak memory of a live process, read from Linux's /proc.
struct ProcessStats: Sendable {
    /// User plus system CPU seconds so far.
    var cpuSeconds: Double
    /// Peak resident set size (`VmHWM`), in bytes.
    var peakResidentBytes: Int

    /// Reads `pid`'s stats; `nil` when /proc has no such process (exited, or not Linux).
    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the parenthesised name start at field 3 (state); utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        cpuSeconds = (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        let kilobytes = line.flatMap { Int($0.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") } ?? 0
        peakResidentBytes = kilobytes * 1024
    }
}

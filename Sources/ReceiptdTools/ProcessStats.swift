import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// CPU time and peak memory of a live process, read from Linux's /proc.
struct ProcessStats: Sendable {
    /// User plus system CPU seconds so far.
    var cpuSeconds: Double
    /// User plus system CPU seconds of its children that exited and were waited for.
    var exitedChildrenCPUSeconds: Double
    /// The parent's pid.
    var parentPID: pid_t
    /// Peak resident set size (`VmHWM`), in bytes.
    var peakResidentBytes: Int

    /// Reads `pid`'s stats; `nil` when /proc has no such process (exited, or not Linux).
    init?(pid: pid_t) {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the parenthesised name start at field 3 (state): ppid is field 4, utime and stime are
        // 14 and 15, cutime and cstime 16 and 17.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        guard fields.count > 15, let parent = pid_t(fields[1]), let user = Double(fields[11]),
            let system = Double(fields[12]),
            let childUser = Double(fields[13]), let childSystem = Double(fields[14])
        else { return nil }
        parentPID = parent
        cpuSeconds = (user + system) / ticks
        exitedChildrenCPUSeconds = (childUser + childSystem) / ticks
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") }
        let kilobytes =
            line.flatMap { Int($0.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") } ?? 0
        peakResidentBytes = kilobytes * 1024
    }

    /// CPU seconds of a process tree so far: the process, its living children, and the children it has reaped
    /// (PostgreSQL's backends come and go with their connections; the postmaster reaps them).
    static func treeCPUSeconds(root: pid_t) -> Double {
        guard let rootStats = ProcessStats(pid: root) else { return 0 }
        let children = ((try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? [])
            .compactMap { pid_t($0) }
            .compactMap { ProcessStats(pid: $0) }
            .filter { $0.parentPID == root }
        return rootStats.cpuSeconds + rootStats.exitedChildrenCPUSeconds + children.reduce(0) { $0 + $1.cpuSeconds }
    }
}

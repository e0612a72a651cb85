import Foundation

/// The value a daemon writes into `locked_by`: host, pid and a per-start id, so a restarted process
/// with a recycled pid never mistakes an earlier run's jobs for its own.
enum DaemonIdentity {
    /// A fresh identity for this start.
    static func make() -> String {
        let host = ProcessInfo.processInfo.hostName
        let startID = UUID().uuidString.prefix(8).lowercased()
        return "\(host):\(getpid()):\(startID)"
    }
}

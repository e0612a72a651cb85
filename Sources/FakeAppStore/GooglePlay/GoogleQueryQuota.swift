import Foundation
import Synchronization

/// Google Play's per-minute query quota, as the stand-in enforces it when configured: at most `perMinute` calls of
/// the Android Publisher API in any rolling minute (counted by the second), the rest answered 429 as Google answers
/// them (3,000 a minute is the default quota of a bucket).
final class GoogleQueryQuota: Sendable {
    private let perMinute: Int?
    /// Calls admitted in each of the last 60 seconds, by the second since 1970.
    private let seconds = Mutex<[Int: Int]>([:])

    /// No limit when `perMinute` is nil.
    init(perMinute: Int?) {
        self.perMinute = perMinute
    }

    /// Counts one call at `now`; false when the minute before it already had its quota.
    func admit(now: Date = Date()) -> Bool {
        guard let perMinute else { return true }
        let second = Int(now.timeIntervalSince1970)
        return seconds.withLock { seconds in
            seconds = seconds.filter { $0.key > second - 60 }
            guard seconds.values.reduce(0, +) < perMinute else { return false }
            seconds[second, default: 0] += 1
            return true
        }
    }
}

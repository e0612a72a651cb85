import Synchronization

/// Decides which refusals are logged: the first of each cause at once, then at most one line per cause every
/// `interval`, carrying how many were refused since the last line; so a flood of bad requests cannot flood the log.
/// The metric counts every one.
final class RefusalLog: Sendable {
    private struct Entry {
        var logged: ContinuousClock.Instant
        var since: Int
    }

    private let interval: Duration
    private let entries = Mutex<[String: Entry]>([:])

    /// Creates a log that writes one line per cause per `interval`.
    init(interval: Duration) {
        self.interval = interval
    }

    /// Notes one refusal for `cause`; returns how many refusals of that cause the line to write now reports
    /// (this one included), or nil when no line is due.
    func note(_ cause: String, now: ContinuousClock.Instant = .now) -> Int? {
        entries.withLock { entries in
            guard var entry = entries[cause] else {
                entries[cause] = Entry(logged: now, since: 0)
                return 1
            }
            entry.since += 1
            guard now - entry.logged >= interval else {
                entries[cause] = entry
                return nil
            }
            entries[cause] = Entry(logged: now, since: 0)
            return entry.since
        }
    }
}

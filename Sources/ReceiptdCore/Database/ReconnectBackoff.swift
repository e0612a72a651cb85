/// The one reconnect-with-backoff of the daemon (its start-up check, its `LISTEN` connection, its lease work):
/// whether the database is failing, so that an outage is logged once and its end once, and the pause before the
/// next try, doubling from `first` up to `longest` and starting over once the database answers.
package struct ReconnectBackoff: Sendable {
    private let first: Duration
    private let longest: Duration
    private var pause: Duration
    /// Whether the last try failed.
    private var isFailing = false

    /// Creates a backoff for a database that has not failed yet.
    package init(first: Duration = .milliseconds(250), longest: Duration = .seconds(10)) {
        self.first = first
        self.longest = longest
        pause = first
    }

    /// Notes a failed try; true when it is the first since the database last answered (the one to log).
    package mutating func failed() -> Bool {
        defer { isFailing = true }
        return !isFailing
    }

    /// Notes that the database answered; true when it had been failing (the moment to say it is back).
    package mutating func succeeded() -> Bool {
        defer {
            isFailing = false
            pause = first
        }
        return isFailing
    }

    /// Waits the current pause (less when the task is cancelled), then doubles it up to `longest`.
    package mutating func wait() async {
        try? await Task.sleep(for: pause)
        pause = min(pause * 2, longest)
    }
}

import Crypto
import Foundation

/// The failed sign-in limit, per name (known or not; counted in NFC, so every spelling of a name is one): once `failuresAllowed` sign-ins for a name failed within
/// `window`, the next ones are refused without checking the password until the oldest of those failures is
/// `window` old. A success clears the name's failures. Pure: the caller passes the time.
///
/// A sign-in whose password is being checked counts as a failure until it ends (`admit` … `finish`), so that
/// many guesses sent at once cannot all get past the limit. Memory is bounded: names are kept as digests,
/// forgotten once their failures are older than `window`, and at most `maximumNames` are kept.
package struct SignInThrottle: Sendable {
    private struct Entry: Sendable {
        /// When each counted failure happened, oldest first.
        var failures: [Date] = []
        /// Sign-ins admitted and not yet finished.
        var inFlight = 0
    }

    /// Failed sign-ins for one name within `window` before the next are refused.
    package let failuresAllowed: Int
    /// How long a failure counts.
    package let window: Duration
    /// How many names are remembered at most; beyond it the stalest are forgotten.
    package let maximumNames: Int
    private var entries: [SHA256Digest: Entry] = [:]

    /// A limit of `failuresAllowed` failures per name within `window`.
    package init(failuresAllowed: Int, window: Duration, maximumNames: Int = 10_000) {
        self.failuresAllowed = max(1, failuresAllowed)
        self.window = window
        self.maximumNames = max(1, maximumNames)
    }

    /// Whether a sign-in for `name` may have its password checked at `now`. When it may, it is in flight
    /// until `finish` reports how it ended.
    package mutating func admit(_ name: String, at now: Date) -> Bool {
        let key = Self.key(name)
        var entry = entries[key] ?? Entry()
        entry.failures.removeAll { !counts($0, at: now) }
        guard entry.failures.count + entry.inFlight < failuresAllowed else {
            entries[key] = entry
            return false
        }
        entry.inFlight += 1
        if entries[key] == nil { makeRoom(at: now) }
        entries[key] = entry
        return true
    }

    /// Ends a sign-in `admit` let through: a failure counts from `now`; a success clears the name's failures.
    package mutating func finish(_ name: String, succeeded: Bool, at now: Date) {
        let key = Self.key(name)
        var entry = entries[key] ?? Entry()
        entry.inFlight = max(0, entry.inFlight - 1)
        entry.failures.removeAll { !counts($0, at: now) }
        if succeeded {
            entry.failures.removeAll()
        } else {
            entry.failures.append(now)
        }
        entries[key] = entry.failures.isEmpty && entry.inFlight == 0 ? nil : entry
    }

    /// The failures of `name` that still count at `now`.
    package func failures(for name: String, at now: Date) -> Int {
        entries[Self.key(name)]?.failures.count(where: { counts($0, at: now) }) ?? 0
    }

    /// How many names are remembered (for the memory bound's tests).
    package var rememberedNames: Int { entries.count }

    private func counts(_ failure: Date, at now: Date) -> Bool {
        now.timeIntervalSince(failure) < ConsoleAuthentication.seconds(window)
    }

    /// Before a new name is added at the bound: forgets names with nothing left that counts, then, if that is not
    /// enough, those whose latest failure is oldest (never one with a sign-in in flight).
    private mutating func makeRoom(at now: Date) {
        guard entries.count >= maximumNames else { return }
        entries = entries.filter { $0.value.inFlight > 0 || $0.value.failures.contains { counts($0, at: now) } }
        guard entries.count >= maximumNames else { return }
        let stalest = entries.filter { $0.value.inFlight == 0 }
            .sorted { ($0.value.failures.last ?? .distantPast) < ($1.value.failures.last ?? .distantPast) }
            .prefix(entries.count - maximumNames + 1)
        for (key, _) in stalest { entries[key] = nil }
    }

    /// Names are remembered as digests of their NFC: an attacker's long names cost 32 bytes each, and canonically
    /// equivalent spellings (which the users file matches alike) share one count.
    private static func key(_ name: String) -> SHA256Digest {
        SHA256.hash(data: Data(ConsoleUser.normalized(name).utf8))
    }
}

/// Where a daemon's next claim of a subscription re-read starts in `subscriptions_read_due`.
///
/// The claim walks the index in due order and takes the first row it may: everything before that row was dead
/// (rows already read, whose index entries stay until a vacuum, and are visited again while any older snapshot
/// is open), leased, locked or of a store this daemon does not read. A storm leaves thousands of such entries at
/// the index's head, and a claim from the start walks all of them each time. So each claim starts where the
/// previous one's row was due, and only sometimes from the start: when nothing is due past that point, and
/// at least every `fullScanInterval`. A row that became due before the point later (a write whose transaction
/// began before the claim, a lease that ran out) is found by the next claim from the start.
struct SubscriptionReadCursor {
    /// The longest a row due behind the point waits for a claim from the start.
    static let fullScanInterval: Duration = .seconds(5)

    /// When the last claimed row was due (microseconds since 1970); nil: the next claim starts at the beginning.
    private var point: Int64?
    private var lastFullScan: ContinuousClock.Instant?

    /// The bound of the next claim, nil for one from the start.
    mutating func bound(at now: ContinuousClock.Instant) -> Int64? {
        if let point, let lastFullScan, now - lastFullScan < Self.fullScanInterval { return point }
        lastFullScan = now
        point = nil
        return nil
    }

    /// The claim took a row due at `dueAt`, or none (`nil`): the next starts there, or from the beginning.
    mutating func claimed(dueAt: Int64?) {
        point = dueAt
    }
}

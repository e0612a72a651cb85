/// What the console's order page shows: the order (`show`'s detail), its status, the operators' actions on it, and
/// all of it as one timeline, oldest first.
package struct OrderTimeline: Sendable, Codable, Equatable {
    /// The order, its jobs and attempts, ledger rows, notifications, provisional grant and webhook events.
    package var detail: OrderDetail
    /// `pending`, `verified`, `finished` or `closed`.
    package var status: String
    /// When the game confirmed granting each ledger row it granted, by transaction id (ISO-8601, UTC).
    package var grantedAt: [String: String]
    /// The operators' actions on the order, oldest first.
    package var actions: [OperatorActionRecord]

    /// Every event, oldest first; events of the same second keep the order they are listed in (the checkout, each
    /// job followed by its attempts, each ledger row with its grant and revocation, notifications, webhook events,
    /// actions).
    package var events: [TimelineEvent] {
        let listed = unsortedEvents
        return listed.indices.sorted { (listed[$0].at, $0) < (listed[$1].at, $1) }.map { listed[$0] }
    }
}

/// Whether a piece of App Store news about a subscription leaves something open that only a re-read from the store
/// (Get All Subscription Statuses) settles. News that says it all is written as it comes, and asks no store call: a
/// storm of renewals would otherwise spend the endpoint's whole quota learning what the notifications said. Pure: the
/// news and what the subscription's row held before it are given.
package enum SubscriptionRereadPlanner {
    /// What the news says.
    package struct News: Sendable, Equatable {
        /// The transaction it is about.
        package var transactionID: String
        /// When that transaction's period began (`purchaseDate`).
        package var purchaseDateMilliseconds: Int64?
        /// Whether it carries Apple's `status` of the subscription: without, its state is a guess from the dates.
        package var statusKnown: Bool
        /// Whether it carries the renewal info: without, whether and to what it renews is unknown.
        package var renewalKnown: Bool

        /// Creates one.
        package init(transactionID: String, purchaseDateMilliseconds: Int64?, statusKnown: Bool, renewalKnown: Bool) {
            self.transactionID = transactionID
            self.purchaseDateMilliseconds = purchaseDateMilliseconds
            self.statusKnown = statusKnown
            self.renewalKnown = renewalKnown
        }
    }

    /// What the subscription's row held before the news: the ledger's last period, delivered or owed (every writer
    /// that moves it enqueues that period).
    package struct Known: Sendable, Equatable {
        /// The transaction of its latest period.
        package var latestTransactionID: String?
        /// The end of its latest period.
        package var expiresAtMilliseconds: Int64?

        /// Creates one.
        package init(latestTransactionID: String?, expiresAtMilliseconds: Int64?) {
            self.latestTransactionID = latestTransactionID
            self.expiresAtMilliseconds = expiresAtMilliseconds
        }
    }

    /// The decision.
    package enum Decision: Sendable, Equatable {
        /// The news leaves nothing open: written as it says, the row's watch follows it.
        case none
        /// The news created the row: nothing told what the ledger held before it.
        case unknownSubscription
        /// The news lacks the status or the renewal info.
        case undecidedState
        /// The news's period begins after the known one ends: one may be missing between.
        case missingPeriod

        /// Whether a re-read is asked at once.
        package var asksRead: Bool { self != .none }
    }

    /// A period that begins within this many milliseconds of the known one's end follows it; the reader's test for
    /// a missing period is the same.
    package static let followingTolerance: Int64 = 1_000

    /// Whether `news` leaves something open, given what the row held before it (`nil`: there was no row).
    package static func decide(_ news: News, known: Known?) -> Decision {
        guard let known else { return .unknownSubscription }
        guard news.statusKnown, news.renewalKnown else { return .undecidedState }
        // News of the latest period, or of one before it (a refund, a change of renewal): no period can be missing.
        if news.transactionID == known.latestTransactionID { return .none }
        guard let start = news.purchaseDateMilliseconds, let end = known.expiresAtMilliseconds else {
            return .missingPeriod
        }
        return start > end + followingTolerance ? .missingPeriod : .none
    }
}

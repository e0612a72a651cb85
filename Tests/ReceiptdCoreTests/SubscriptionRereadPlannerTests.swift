import Testing

@testable import ReceiptdCore

/// When App Store news about a subscription asks a re-read from the store, without I/O: only for what it leaves
/// open (issue #48).
@Suite struct SubscriptionRereadPlannerTests {
    /// The row before the news: its latest period, transaction "10", ended at 100,000.
    private let known = SubscriptionRereadPlanner.Known(latestTransactionID: "10", expiresAtMilliseconds: 100_000)

    private func news(
        _ id: String = "11",
        start: Int64? = 100_000,
        status: Bool = true,
        renewal: Bool = true
    ) -> SubscriptionRereadPlanner.News {
        SubscriptionRereadPlanner.News(
            transactionID: id,
            purchaseDateMilliseconds: start,
            statusKnown: status,
            renewalKnown: renewal
        )
    }

    @Test func aRenewalThatFollowsTheKnownPeriodLeavesNothingOpen() {
        #expect(SubscriptionRereadPlanner.decide(news(), known: known) == .none)
        // Apple's dates may differ by a little.
        #expect(SubscriptionRereadPlanner.decide(news(start: 100_900), known: known) == .none)
        // Bought before the known period ended (an upgrade's new period).
        #expect(SubscriptionRereadPlanner.decide(news(start: 40_000), known: known) == .none)
        #expect(!SubscriptionRereadPlanner.Decision.none.asksRead)
    }

    @Test func newsOfTheKnownPeriodLeavesNothingOpen() {
        // A failed renewal, a change of renewal, a refund of the latest period: its own transaction.
        #expect(SubscriptionRereadPlanner.decide(news("10", start: 50_000), known: known) == .none)
    }

    @Test func aRenewalBeginningAfterTheKnownPeriodEndsAsksARead() {
        let decision = SubscriptionRereadPlanner.decide(news(start: 100_000 + 3_600_000), known: known)
        #expect(decision == .missingPeriod && decision.asksRead)
        #expect(SubscriptionRereadPlanner.decide(news(start: 101_001), known: known) == .missingPeriod)
        // Nothing to compare.
        #expect(SubscriptionRereadPlanner.decide(news(start: nil), known: known) == .missingPeriod)
        let unknownEnd = SubscriptionRereadPlanner.Known(latestTransactionID: "10", expiresAtMilliseconds: nil)
        #expect(SubscriptionRereadPlanner.decide(news(), known: unknownEnd) == .missingPeriod)
    }

    @Test func newsWithoutItsStatusOrRenewalInfoAsksARead() {
        #expect(SubscriptionRereadPlanner.decide(news(status: false), known: known) == .undecidedState)
        #expect(SubscriptionRereadPlanner.decide(news("10", renewal: false), known: known) == .undecidedState)
    }

    @Test func newsThatCreatesTheRowAsksARead() {
        #expect(SubscriptionRereadPlanner.decide(news(), known: nil) == .unknownSubscription)
    }
}

import Testing

@testable import ReceiptdCore

/// The subscriptions' gauges are counted every 15 s, and less often when a count is slow (issue #48): the count reads
/// every subscription, and at a million of them it was most of an idle daemon's cost.
@Suite struct SubscriptionFiguresPacingTests {
    @Test func aQuickCountIsRepeatedEveryFifteenSeconds() {
        #expect(SubscriptionReader.figuresDelay(counting: .milliseconds(2)) == .seconds(15))
        #expect(SubscriptionReader.figuresDelay(counting: .milliseconds(25)) == .seconds(15))
    }

    @Test func aSlowCountTakesAtMostASixHundredthOfTheTime() {
        #expect(SubscriptionReader.figuresDelay(counting: .milliseconds(150)) == .seconds(90))
        #expect(SubscriptionReader.figuresDelay(counting: .seconds(1)) == .seconds(600))
    }
}

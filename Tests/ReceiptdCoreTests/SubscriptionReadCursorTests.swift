import Testing

@testable import ReceiptdCore

/// Issue 48, item 9: a daemon's re-read claims start where the previous claim's row was due, and from the start
/// when nothing was found past it and at least every `fullScanInterval`, so a row that fell behind is still read.
@Suite struct SubscriptionReadCursorTests {
    @Test func claimsStartAtThePreviousRowAndSometimesFromTheStart() {
        var cursor = SubscriptionReadCursor()
        let start = ContinuousClock.now
        #expect(cursor.bound(at: start) == nil, "the first claim is from the start")
        cursor.claimed(dueAt: 1_000)
        #expect(cursor.bound(at: start + .seconds(1)) == 1_000)
        cursor.claimed(dueAt: 1_500)
        #expect(cursor.bound(at: start + .seconds(2)) == 1_500)
        // Nothing past the point: the next claim looks from the start.
        cursor.claimed(dueAt: nil)
        #expect(cursor.bound(at: start + .seconds(3)) == nil)
        cursor.claimed(dueAt: 800)
        #expect(cursor.bound(at: start + .seconds(4)) == 800)
        // However much is found past the point, a claim from the start comes every interval.
        let interval = SubscriptionReadCursor.fullScanInterval
        cursor.claimed(dueAt: 900)
        #expect(cursor.bound(at: start + .seconds(3) + interval) == nil)
        cursor.claimed(dueAt: 950)
        #expect(cursor.bound(at: start + .seconds(4) + interval) == 950)
    }
}

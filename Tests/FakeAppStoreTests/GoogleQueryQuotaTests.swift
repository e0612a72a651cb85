import Foundation
import Testing

@testable import FakeAppStore

/// The stand-in Google Play's per-minute query quota (issue #48, item 5: lost renewals at the store's limits).
@Suite struct GoogleQueryQuotaTests {
    @Test func aRollingMinuteAdmitsItsQuotaAndNoMore() {
        let quota = GoogleQueryQuota(perMinute: 3)
        let start = Date(timeIntervalSince1970: 1_000_000)
        #expect(
            (0..<4).map { quota.admit(now: start.addingTimeInterval(Double($0) * 10)) } == [true, true, true, false]
        )
        // The first call's second leaves the window 60 s after it: one more fits, then none again.
        #expect(quota.admit(now: start.addingTimeInterval(59.5)) == false)
        #expect(quota.admit(now: start.addingTimeInterval(60)) == true)
        #expect(quota.admit(now: start.addingTimeInterval(61)) == false)
        // A refused call does not count.
        #expect(quota.admit(now: start.addingTimeInterval(70)) == true)
    }

    @Test func withoutAQuotaEveryCallIsAdmitted() {
        let quota = GoogleQueryQuota(perMinute: nil)
        #expect((0..<10_000).allSatisfy { _ in quota.admit() })
    }
}

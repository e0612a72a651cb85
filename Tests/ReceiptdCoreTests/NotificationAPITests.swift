import Foundation
import Testing

@testable import ReceiptdCore

/// The consumption answer's body, how Send Consumption Information's answers are judged, and the catch-up's
/// windows, without I/O.
@Suite struct NotificationAPITests {
    private let now = Date(timeIntervalSince1970: 1_700_000_000)
    private static let day: Int64 = 86_400_000

    private var nowMilliseconds: Int64 { Int64(now.timeIntervalSince1970 * 1000) }

    @Test func aGrantedPurchaseIsDeliveredWithoutAPercentage() {
        let body = ConsumptionInformation(deliveredAndGranted: true, preference: .none)
        #expect(body.json == #"{"customerConsented":true,"deliveryStatus":"DELIVERED","sampleContentProvided":false}"#)
    }

    @Test func anUngrantedPurchaseIsUndeliveredWithZeroPercentAndThePreference() {
        let body = ConsumptionInformation(deliveredAndGranted: false, preference: .decline)
        #expect(
            body.json
                == #"{"consumptionPercentage":0,"customerConsented":true,"deliveryStatus":"UNDELIVERED_OTHER","refundPreference":"DECLINE","sampleContentProvided":false}"#
        )
        #expect(
            ConsumptionInformation(deliveredAndGranted: true, preference: .grantFull).refundPreference
                == "GRANT_FULL"
        )
    }

    private func judge(_ status: Int, _ body: String = "", retryAfter: String? = nil) -> ServerAPIOutcome {
        ServerAPIClassifier.classify(
            status: status,
            body: Data(body.utf8),
            retryAfter: retryAfter,
            environment: .production,
            success: 202,
            now: now
        ).outcome
    }

    @Test func consumptionAnswersAreJudged() {
        guard case .found = judge(202).answer else {
            Issue.record("202 is Send Consumption Information's success")
            return
        }
        // The transient: a server error, a rate limit, an error without Apple's JSON.
        for outcome in [judge(500), judge(429, #"{"errorCode":4290000}"#, retryAfter: "1"), judge(503)] {
            guard case .verdict(.retry) = outcome.answer else {
                Issue.record("\(outcome) should be retried")
                continue
            }
        }
        // Apple refusing the request itself is for good.
        for outcome in [judge(400, #"{"errorCode":4000000}"#), judge(404, #"{"errorCode":4040010}"#)] {
            guard case .verdict(.reject) = outcome.answer else {
                Issue.record("\(outcome) should be refused for good")
                continue
            }
        }
        // A 200 is not Send Consumption Information's success.
        guard case .verdict(.retry) = judge(200).answer else {
            Issue.record("200 from the consumption endpoint is unexpected")
            return
        }
    }

    @Test func theFirstWindowLooksBackADay() {
        let window = NotificationHistoryPoller.window(.production, stored: nil, now: now)
        #expect(window.end == nowMilliseconds && window.start == nowMilliseconds - Self.day)
    }

    @Test func eachWindowOverlapsTheLastByAnHour() {
        let window = NotificationHistoryPoller.window(.sandbox, stored: nowMilliseconds - 7_200_000, now: now)
        #expect(window.start == nowMilliseconds - 10_800_000 && window.end == nowMilliseconds)
    }

    /// A window is [start, end): a notification signed in its last millisecond, or made available by Apple after
    /// the window was asked, is left out of it. The next window, whenever it runs, starts an hour before that end,
    /// so the catch-up asks for it again; the notification's id absorbs the repeats.
    @Test func whatAWindowLeavesAtItsEndTheNextAsksFor() {
        let first = NotificationHistoryPoller.window(.production, stored: nil, now: now)
        for later in [1.0, 0.001, 3600] {
            let next = NotificationHistoryPoller.window(
                .production,
                stored: first.end,
                now: now.addingTimeInterval(later)
            )
            #expect(next.start <= first.end - 3_600_000 && next.end > first.end)
        }
    }

    @Test func noWindowStartsEarlierThanAppleKeepsHistory() {
        let production = NotificationHistoryPoller.window(.production, stored: 0, now: now)
        #expect(production.start == nowMilliseconds - 179 * Self.day)
        let sandbox = NotificationHistoryPoller.window(.sandbox, stored: nowMilliseconds - 40 * Self.day, now: now)
        #expect(sandbox.start == nowMilliseconds - 29 * Self.day)
        // A cursor ahead of the clock (another daemon's clock) never makes a window end before it starts.
        let ahead = NotificationHistoryPoller.window(.production, stored: nowMilliseconds + 10 * Self.day, now: now)
        #expect(ahead.start == ahead.end)
    }
}

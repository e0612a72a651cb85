import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Google's news in the store's order: a push's `eventTimeMillis` and the voided poll's `voidedTimeMillis` date
/// it, and a voiding of the whole purchase older than the news the ledger row has changes nothing.
extension StoreOrderTests {
    @Test func aGoogleVoidingOlderThanTheNewsAppliedChangesNothingByPushOrByThePoll() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.880", quantity: 3).encoded()
            var hourly = settings
            hourly.googlePlay.voidedInterval = .seconds(3600)
            try await f.withDaemons(settings: hourly) { daemons in
                try await f.connection.execute(
                    "SELECT iap.enqueue_google_purchase('o1', 'alice', 'gems', $1, 3, NULL)",
                    [token]
                )
                try await f.waitUntilSettled()
                let poller = try #require(daemons[0].companions.compactMap { $0 as? GoogleVoidedPoller }.first)
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_voided_cursor WHERE polled_at IS NOT NULL")
                        == "1"
                }

                // A partial refund of one unit, pushed: the row is dated with the push's event time.
                let event = Self.now
                let before = { (seconds: Int64) in Date(timeIntervalSince1970: Double(event - seconds * 1000) / 1000) }
                google.void(token: token, orderID: "GPA.880", reason: 1, at: before(1), quantity: 1)
                try await f.expectProcessed(
                    try await f.recordGoogleVoided(
                        token: token,
                        orderID: "GPA.880",
                        refundType: 2,
                        eventTimeMillis: event
                    ),
                    "partly_revoked"
                )
                #expect(try await Self.ledger(f, "GPA.880") == (false, event))

                // A push of a full refund that happened an hour before arrives late: nothing changes.
                try await f.expectProcessed(
                    try await f.recordGoogleVoided(
                        token: token,
                        orderID: "GPA.880",
                        refundType: 1,
                        eventTimeMillis: event - 3_600_000
                    ),
                    "superseded"
                )
                // The poll lists a voiding of the whole purchase half an hour before: nothing changes either.
                google.void(token: token, orderID: "GPA.880", reason: 0, at: before(1800))
                try await f.connection.execute(
                    "UPDATE iap.google_voided_cursor SET start_time_ms = $1",
                    [event - 7_200_000]
                )
                try await f.waitUntil { try await poller.pollOnce() != nil }
                let row = try await f.row(
                    "SELECT revoked_at, revoked_quantity FROM iap.deliveries WHERE transaction_id = 'GPA.880'"
                )
                #expect(row["revoked_at"] == nil && row["revoked_quantity"] == "1")
                #expect(try await Self.ledger(f, "GPA.880") == (false, event))
                #expect(try await f.value("SELECT revoked_quantity FROM iap.owed_revocations('alice')") == "1")
                #expect(try await f.value("SELECT count(*) FROM iap.revoked_transactions") == "0")

                // A later full refund still revokes the rest.
                try await f.expectProcessed(
                    try await f.recordGoogleVoided(
                        token: token,
                        orderID: "GPA.880",
                        refundType: 1,
                        eventTimeMillis: event + 60_000
                    ),
                    "revoked"
                )
                #expect(try await Self.ledger(f, "GPA.880") == (true, event + 60_000))
            }
        }
    }
}

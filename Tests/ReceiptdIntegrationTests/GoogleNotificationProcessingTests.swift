import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Processing Google's real-time developer notifications against the stand-in Google Play: the lookup asks
/// Google, the processor settles a purchase to its order (or records it unclaimed), wakes a job a cancelled
/// pending purchase holds, and revokes whole purchases or units of them, each exactly once.
@Suite struct GoogleNotificationProcessingTests {
    /// `iap.create_order` binding the order to Google's `obfuscatedExternalAccountId`.
    private func checkout(
        _ f: Fixture,
        _ order: String,
        user: String = "alice",
        account: String,
        quantity: Int = 1
    )
        async throws
    {
        try await f.connection.execute(
            "SELECT iap.create_order($1, $2, 'gems', $3, NULL, $4)",
            [order, user, quantity, account]
        )
    }

    /// `iap.enqueue_google_purchase` of `token` for `order`, for `quantity` units.
    private func enqueue(
        _ f: Fixture,
        _ order: String,
        user: String = "alice",
        token: String,
        quantity: Int = 1
    )
        async throws
    {
        try await f.connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, 'gems', $3, $4, NULL)",
            [order, user, token, quantity]
        )
    }

    @Test func aPurchaseOnlyGoogleReportedIsSettledToItsOrderAndTheClientsTokenDeliversNothingTwice() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            try await checkout(f, "o-later", account: "acct-1")
            try await checkout(f, "o-first", account: "acct-1")
            try await f.connection.execute(
                "UPDATE iap.orders SET checkout_at = checkout_at - interval '1 minute' WHERE order_id = 'o-first'"
            )
            try await checkout(f, "o-other", account: "acct-2")
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.100", accountID: "acct-1").encoded()
            try await f.withDaemons(settings: settings) { _ in
                let id = try await f.recordGoogleOneTime(1, token: token)
                try await f.expectProcessed(id, "charge_enqueued")
                try await f.waitUntilSettled()
                let ledger = try await f.row("SELECT order_id, store, user_id FROM iap.deliveries")
                #expect(ledger["order_id"] == "o-first" && ledger["store"] == "google" && ledger["user_id"] == "alice")
                #expect(
                    try await f.value("SELECT submitted_by FROM iap.jobs WHERE order_id = 'o-first'")
                        == "google_notification"
                )
                #expect(try await f.value("SELECT transaction_id FROM iap.store_notifications") == "GPA.100")
                try await f.waitUntil { f.acknowledgements(google, token: token) == 1 }

                // The client comes back with its token, for its order and for another one: nothing twice.
                try await enqueue(f, "o-first", token: token)
                try await enqueue(f, "o-later", token: token)
                try await f.waitUntilSettled()
                #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
                #expect(
                    try await f.value("SELECT delivered_quantity FROM iap.orders WHERE order_id = 'o-later'") == "0"
                )
                // The same purchase reported again (another message) finds it delivered.
                let again = try await f.recordGoogleOneTime(1, token: token)
                try await f.expectProcessed(again, "charge_already_delivered")
            }
            #expect(f.acknowledgements(google, token: token) == 1)
        }
    }

    @Test func aPurchaseNoOrderMatchesIsUnclaimedThenAssignedAndAcknowledgedOnce() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let bought = Int64(Date().timeIntervalSince1970 * 1000) - 60_000
            let token = SyntheticPurchaseToken(
                productID: "gems",
                orderID: "GPA.200",
                quantity: 2,
                accountID: "acct-nobody",
                purchaseTimeMilliseconds: bought
            ).encoded()
            try await f.withDaemons(settings: settings) { _ in
                let id = try await f.recordGoogleOneTime(1, token: token)
                try await f.expectProcessed(id, "charge_unclaimed")
                let unclaimed = try await f.row(
                    """
                    SELECT store, product_id, quantity, purchase_token, user_id, notification_id,
                           (extract(epoch FROM purchase_date) * 1000)::bigint AS bought,
                           acknowledge_by - purchase_date = interval '3 days' AS three_days
                    FROM iap.unclaimed_payments WHERE transaction_id = 'GPA.200'
                    """
                )
                #expect(unclaimed["store"] == "google" && unclaimed["product_id"] == "gems")
                #expect(unclaimed["quantity"] == "2" && unclaimed["purchase_token"] == token)
                #expect(unclaimed["user_id"] == nil && unclaimed["notification_id"] == String(id))
                #expect(unclaimed["bought"] == String(bought) && unclaimed["three_days"] == "t")
                // Nothing acknowledges it until it is assigned.
                #expect(f.acknowledgements(google, token: token) == 0)

                try await f.connection.execute("SELECT iap.create_order('o9', 'bob', 'gems', 2)")
                try await f.connection.execute("SELECT iap.assign_payment('GPA.200', 'o9')")
                let ledger = try await f.row("SELECT order_id, store, quantity FROM iap.deliveries")
                #expect(ledger["order_id"] == "o9" && ledger["store"] == "google" && ledger["quantity"] == "2")
                try await f.waitUntil { f.acknowledgements(google, token: token) == 1 }

                // The client's token for another order later: nothing twice.
                try await enqueue(f, "o10", user: "bob", token: token, quantity: 2)
                try await f.waitUntilSettled()
                #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "1")
                #expect(try await f.value("SELECT delivered_quantity FROM iap.orders WHERE order_id = 'o10'") == "0")
            }
            #expect(f.acknowledgements(google, token: token) == 1)
        }
    }

    @Test func anUnclaimedPaymentGoogleVoidedIsNeverAssigned() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.210", accountID: "acct-x").encoded()
            try await f.withDaemons(settings: settings) { _ in
                try await f.expectProcessed(try await f.recordGoogleOneTime(1, token: token), "charge_unclaimed")
                let voided = try await f.recordGoogleVoided(token: token, orderID: "GPA.210", refundType: 1)
                try await f.expectProcessed(voided, "revoked_undelivered")
            }
            try await f.connection.execute("SELECT iap.create_order('o11', 'bob', 'gems', 1)")
            do {
                try await f.connection.execute("SELECT iap.assign_payment('GPA.210', 'o11')")
                Issue.record("a voided payment was assigned")
            } catch let error as PostgresError {
                #expect(error.sqlState == "55000")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }

    @Test func aCancelledPendingPurchaseWakesTheJobWaitingOnItsToken() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            try await checkout(f, "o-pending", account: "acct-3")
            // Pending for the lookup's call and the job's first; cancelled after.
            let token = SyntheticPurchaseToken(productID: "gems", state: 1, pendingCalls: 2, accountID: "acct-3")
                .encoded()
            try await f.withDaemons(settings: settings) { _ in
                try await f.expectProcessed(try await f.recordGoogleOneTime(1, token: token), "charge_enqueued")
                // The job asked once, saw it pending, and waits a minute before asking again.
                try await f.waitUntil {
                    try await f.value(
                        "SELECT count(*) FROM iap.jobs WHERE state = 'pending' AND run_at > now() + interval '30 seconds'"
                    ) == "1"
                }
                let cancelled = try await f.recordGoogleOneTime(2, token: token)
                try await f.expectProcessed(cancelled, "job_woken")
                try await f.waitUntilSettled(timeout: .seconds(20))
            }
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries") == "0")
        }
    }

    @Test func aPendingPurchaseNoOrderMatchesIsPutOffAndACancelLooksAgainAtOnce() async throws {
        try await Fixture.withGooglePlayStandIn { f, _, settings in
            let token = SyntheticPurchaseToken(productID: "gems", state: 1, pendingCalls: 1, accountID: "acct-4")
                .encoded()
            try await f.withDaemons(settings: settings) { _ in
                let purchased = try await f.recordGoogleOneTime(1, token: token)
                try await f.waitUntil {
                    try await f.value(
                        """
                        SELECT count(*) FROM iap.store_notifications
                        WHERE id = $1 AND processed_at IS NULL AND awaiting_lookup AND run_at > now() + interval '30 seconds'
                        """,
                        [purchased]
                    ) == "1"
                }
                #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
                try await f.expectProcessed(try await f.recordGoogleOneTime(2, token: token), "job_woken")
                // Asked again at once: cancelled, nothing to deliver.
                try await f.expectProcessed(purchased, "recorded")
            }
            #expect(try await f.value("SELECT count(*) FROM iap.unclaimed_payments") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.jobs") == "0")
        }
    }

    @Test func fullAndPartialRefundsAfterDeliveryAreOwedToTheGameByUnits() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.400", quantity: 3).encoded()
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")
            try await f.withDaemons(settings: settings) { _ in
                try await enqueue(f, "o4", token: token, quantity: 3)
                try await f.waitUntilSettled()
                #expect(try await f.value("SELECT quantity FROM iap.deliveries") == "3")

                google.void(token: token, orderID: "GPA.400", reason: 1, quantity: 1)
                let partial = try await f.recordGoogleVoided(token: token, orderID: "GPA.400", refundType: 2)
                try await f.expectProcessed(partial, "partly_revoked")
                let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
                #expect(notes.filter { $0.channel == "iap_revoked" }.count == 1)
                var owed = try await f.row(
                    "SELECT transaction_id, revoked_quantity, revoked_at FROM iap.owed_revocations('alice')"
                )
                #expect(
                    owed["transaction_id"] == "GPA.400" && owed["revoked_quantity"] == "1" && owed["revoked_at"] == nil
                )
                #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['GPA.400'])") == "1")
                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('alice')") == "0")
                #expect(
                    try await f.value(
                        "SELECT count(*) FROM iap.google_partial_refunds WHERE notification_id = $1",
                        [partial]
                    ) == "1"
                )

                // The rest refunded in full: the other two units are owed.
                let full = try await f.recordGoogleVoided(token: token, orderID: "GPA.400", refundType: 1)
                try await f.expectProcessed(full, "revoked")
                owed = try await f.row("SELECT revoked_quantity, revocation_reason FROM iap.owed_revocations('alice')")
                #expect(owed["revoked_quantity"] == "2" && owed["revocation_reason"] == "voided")
            }
        }
    }

    @Test func refundsBeforeDeliveryAreRememberedAndNeverDelivered() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let whole = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.500").encoded()
            let some = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.501", quantity: 3).encoded()
            try await f.withDaemons(settings: settings) { _ in
                try await f.expectProcessed(
                    try await f.recordGoogleVoided(token: whole, orderID: "GPA.500", refundType: 1),
                    "revoked_undelivered"
                )
                google.void(token: some, orderID: "GPA.501", reason: 1, quantity: 2)
                try await f.expectProcessed(
                    try await f.recordGoogleVoided(token: some, orderID: "GPA.501", refundType: 2),
                    "revoked_undelivered"
                )
                #expect(
                    try await f.value("SELECT store FROM iap.revoked_transactions WHERE transaction_id = 'GPA.500'")
                        == "google"
                )
                try await enqueue(f, "o5", token: whole)
                try await enqueue(f, "o6", token: some, quantity: 3)
                try await f.waitUntilSettled()
            }
            // The whole refund: never delivered. The partial one: delivered with its units revoked from the start.
            #expect(try await f.value("SELECT delivered_quantity FROM iap.orders WHERE order_id = 'o5'") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.deliveries WHERE transaction_id = 'GPA.500'") == "0")
            let ledger = try await f.row(
                "SELECT revoked_quantity, revoked_at FROM iap.deliveries WHERE transaction_id = 'GPA.501'"
            )
            #expect(ledger["revoked_quantity"] == "2" && ledger["revoked_at"] == nil)
            #expect(try await f.value("SELECT revoked_quantity FROM iap.owed_revocations('alice')") == "2")
        }
    }

    @Test func theVoidedPollRecordsAPartialRefundAsUnitsOnce() async throws {
        try await Fixture.withGooglePlayStandIn { f, google, settings in
            let token = SyntheticPurchaseToken(productID: "gems", orderID: "GPA.600", quantity: 4).encoded()
            var hourly = settings
            hourly.googlePlay.voidedInterval = .seconds(3600)
            try await f.withDaemons(settings: hourly) { daemons in
                try await enqueue(f, "o7", token: token, quantity: 4)
                try await f.waitUntilSettled()
                let poller = try #require(daemons[0].companions.compactMap { $0 as? GoogleVoidedPoller }.first)
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.google_voided_cursor WHERE polled_at IS NOT NULL")
                        == "1"
                }
                try await f.connection.execute(
                    "UPDATE iap.google_voided_cursor SET start_time_ms = $1",
                    [Int64(Date().timeIntervalSince1970 * 1000) - 60_000]
                )
                google.void(token: token, orderID: "GPA.600", reason: 1, quantity: 1)
                try await f.waitUntil { try await poller.pollOnce() != nil }
                // The same refund listed again (the notification's lookup finds it too): counted once.
                let partial = try await f.recordGoogleVoided(token: token, orderID: "GPA.600", refundType: 2)
                try await f.expectProcessed(partial, "partly_revoked")
            }
            let ledger = try await f.row("SELECT revoked_quantity, revoked_at FROM iap.deliveries")
            #expect(ledger["revoked_quantity"] == "1" && ledger["revoked_at"] == nil)
            #expect(try await f.value("SELECT count(*) FROM iap.google_partial_refunds") == "1")
            let asked = try #require(google.recordedVoidedQueries().last)
            #expect(asked.httpStatus == 200)
        }
    }
}

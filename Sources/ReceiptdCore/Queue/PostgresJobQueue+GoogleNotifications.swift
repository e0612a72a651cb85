import Foundation

extension PostgresJobQueue {
    /// A quantity-based partial refund: each refund listed is recorded once, and the ledger row's revoked units
    /// become their sum. Refunds add up, so their sum is the store's in any order they arrive: one is never
    /// superseded, and the row keeps the latest news's time (`storeTime`, the push's event time).
    static func revokeUnits(
        _ transactionID: String,
        refunds: [GooglePartialRefund],
        id: Int64,
        storeTime: Int64,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        _ = try session.execute(googleSQL.dateNews, [transactionID, storeTime])
        let rows = refunds.map { refund -> [(String, JSONText.Value)] in
            [
                ("voided_ms", .int(refund.voidedAtMilliseconds)), ("quantity", .int(Int64(refund.quantity))),
                ("token", .string(refund.purchaseToken)),
            ]
        }
        _ = try session.execute(googleSQL.recordPartialRefunds, [transactionID, JSONText.rows(rows), id])
        let delivered = try session.execute(googleSQL.revokeUnits, [transactionID]).first?["delivered"]
        return (delivered == "t" ? .partlyRevoked : .revokedUndelivered, nil)
    }

    /// Asks for the Google subscription whose latest token is `token` to be read again at once (the re-read is
    /// the truth of every subscription notification); false when no subscription has that token.
    static func rereadGoogleSubscription(_ token: String, in session: DatabaseSession) throws -> Bool {
        try session.execute(rereadGoogleSubscriptionSQL, [token]).affectedRows > 0
    }

    /// The re-read asked at once of the Google subscription whose latest token is `$1`.
    package static let rereadGoogleSubscriptionSQL = """
        UPDATE iap.subscriptions SET read_due_at = now(), read_attempts = 0
        WHERE purchase_token = $1 AND store = 'google'
        """

    /// A pending purchase the buyer cancelled: the job and a put-off notification waiting on its token look again
    /// now.
    static func wakeGooglePurchase(
        _ token: String,
        id: Int64,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        let woken = try session.execute(googleSQL.wake, [token, id]).first
        let count = (Int(woken?["jobs"] ?? "0") ?? 0) + (Int(woken?["notifications"] ?? "0") ?? 0)
        return (count > 0 ? .jobWoken : .recorded, nil)
    }

    /// A purchase Google reported itself: already delivered, enqueued for the order its account and product
    /// match (oldest checkout first), recorded as an unclaimed payment, or (pending, no order) put off to look
    /// again at the pending interval.
    static func settleGooglePurchase(
        _ purchase: GoogleNotifiedPurchase,
        id: Int64,
        signedAt: Int64,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        _ = try session.execute(googleSQL.nameTransaction, [id, purchase.ledgerID])
        let found = try session.execute(
            googleSQL.purchaseOrder,
            [purchase.ledgerID, purchase.accountID, purchase.productID]
        ).first
        if found?["delivered"] == "t" { return (.chargeAlreadyDelivered, nil) }
        if let order = found?["order_id"] {
            _ = try session.execute("SELECT iap.enqueue_notified_google_purchase($1, $2)", [order, purchase.token])
            return (.chargeEnqueued, nil)
        }
        switch purchase.state {
        case .pending:
            let since = purchase.purchaseTimeMilliseconds ?? signedAt
            let waited = max(0, Date().timeIntervalSince1970 * 1000 - Double(since)) / 1000
            let delay = PendingSchedule.delay(afterWaiting: .seconds(waited))
            _ = try session.execute(googleSQL.putOff, [id, delay.seconds])
            return (nil, nil)
        case .purchased:
            _ = try session.execute(
                googleSQL.recordUnclaimed,
                [
                    purchase.ledgerID, purchase.productID, purchase.quantity, purchase.purchaseTimeMilliseconds,
                    purchase.token, id,
                ]
            )
            return (.chargeUnclaimed, nil)
        }
    }

    /// A renewal of a Google subscription no row has the token of (its first period still on its way, or one nobody
    /// claimed) waits for it as Apple's does (`renewalWaitLimit`), and never pays the checkout its first period is
    /// for; after the wait its subscription is looked up, then its latest `period` recorded as an unclaimed payment of
    /// the subscription whose first order is `originalID`, which `iap.assign_payment` makes the player's.
    static func awaitGoogleSubscription(
        _ period: GoogleNotifiedPurchase?,
        originalID: String?,
        id: Int64,
        signedAt: Int64,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        if let period {
            _ = try session.execute(googleSQL.nameTransaction, [id, period.ledgerID])
            let unclaimed = try session.execute(
                googleSQL.recordUnclaimedRenewal,
                [period.ledgerID, period.productID, period.purchaseTimeMilliseconds, period.token, id, originalID]
            ).first
            return (unclaimed?["delivered"] == "t" ? .chargeAlreadyDelivered : .chargeUnclaimed, nil)
        }
        let waited = max(0, Date().timeIntervalSince1970 - Double(signedAt) / 1000)
        if waited < renewalWaitLimit.seconds {
            _ = try session.execute(
                notificationSQL.markDeferred,
                [
                    id, min(max(waited / 4, 5), 900),
                    "a renewal of a subscription no row has the token of yet: waiting for it",
                ]
            )
        } else {
            _ = try session.execute(googleSQL.lookUpRenewal, [id])
        }
        return (nil, nil)
    }

    /// The statements of Google's notifications.
    static let googleSQL = (
        // The row names its ledger id once the lookup knows it (the intake could not).
        nameTransaction: """
        UPDATE iap.store_notifications SET transaction_id = $2 WHERE id = $1 AND transaction_id IS NULL
        """,
        // Whether the ledger has the purchase, and the order it pays: same product and account, not full.
        purchaseOrder: """
        SELECT EXISTS (SELECT 1 FROM iap.deliveries WHERE store = 'google' AND transaction_id = $1) AS delivered,
               (SELECT order_id FROM iap.orders
                WHERE account_id = $2 AND product_id = $3 AND outcome IS DISTINCT FROM 'full'
                ORDER BY checkout_at NULLS LAST, created_at, order_id LIMIT 1) AS order_id
        """,
        // Google refunds a purchase nobody acknowledged within three days of buying it.
        recordUnclaimed: """
        INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, store, purchase_token,
                                            acknowledge_by, notification_id)
        VALUES ($1, $2, greatest($3::int, 1), to_timestamp($4::bigint / 1000.0), 'google', $5,
                to_timestamp($4::bigint / 1000.0) + interval '3 days', $6::bigint)
        ON CONFLICT (transaction_id) DO NOTHING
        """,
        // A renewal nobody claimed, unless the ledger holds it: of its subscription's first order, and owing no
        // acknowledgement (Google's is the subscription's first purchase's).
        recordUnclaimedRenewal: """
        WITH delivered AS (SELECT 1 FROM iap.deliveries WHERE store = 'google' AND transaction_id = $1), recorded AS (
            INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, store,
                                                purchase_token, notification_id, original_transaction_id)
            SELECT $1, $2, 1, to_timestamp($3::bigint / 1000.0), 'google', $4, $5::bigint, $6
            WHERE NOT EXISTS (SELECT 1 FROM delivered)
            ON CONFLICT (transaction_id) DO NOTHING
        )
        SELECT EXISTS (SELECT 1 FROM delivered) AS delivered
        """,
        // A renewal that waited a day for its subscription: subscriptionsv2 is asked for its latest period first.
        lookUpRenewal: """
        UPDATE iap.store_notifications SET awaiting_lookup = true, run_at = now(), attempts = attempts + 1,
            error = 'a renewal of a subscription no row has the token of: looking it up to record it unclaimed'
        WHERE id = $1
        """,
        // Asked again at the pending interval: the lookup runs first.
        putOff: """
        UPDATE iap.store_notifications SET awaiting_lookup = true, run_at = now() + make_interval(secs => $2),
            error = 'pending purchase, no order matches yet'
        WHERE id = $1
        """,
        // The job waiting on a pending purchase's token (not one a daemon runs now) and a put-off purchase
        // notification of that token look again now.
        wake: """
        WITH jobs AS (
            UPDATE iap.jobs SET run_at = now()
            WHERE kind = 'google_purchase' AND receipt_data = $1 AND state = 'pending'
            RETURNING id
        ), notifications AS (
            UPDATE iap.store_notifications SET run_at = now()
            WHERE store = 'google' AND processed_at IS NULL AND awaiting_lookup AND id <> $2::bigint
              AND notification_type = 'ONE_TIME_PRODUCT_PURCHASED'
              AND payload -> 'notification' -> 'oneTimeProductNotification' ->> 'purchaseToken' = $1
            RETURNING id
        ), rung AS (
            SELECT pg_notify('iap_jobs', '') WHERE EXISTS (SELECT 1 FROM jobs)
        )
        SELECT (SELECT count(*) FROM jobs) AS jobs, (SELECT count(*) FROM notifications) AS notifications,
               (SELECT count(*) FROM rung) AS rung
        """,
        // The ledger row (if any) dated $2 (store_time) unless its news is newer.
        dateNews: """
        UPDATE iap.deliveries SET store_time = to_timestamp($2::bigint / 1000.0)
        WHERE store = 'google' AND transaction_id = $1
          AND (store_time IS NULL OR store_time < to_timestamp($2::bigint / 1000.0))
        """,
        // Each refund once, whoever lists it first (this or the voided poll).
        recordPartialRefunds: """
        INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity, purchase_token, notification_id)
        SELECT $1, to_timestamp(r.voided_ms / 1000.0), r.quantity, r.token, $3::bigint
        FROM jsonb_to_recordset($2::jsonb) AS r(voided_ms bigint, quantity int, token text)
        WHERE r.quantity >= 1
        ON CONFLICT (transaction_id, voided_at) DO NOTHING
        """,
        // The row's revoked units become the refunds' sum (iap.revoke_refunded_units); whether it is delivered.
        revokeUnits: """
        WITH revoked AS (SELECT iap.revoke_refunded_units(ARRAY[$1::text]))
        SELECT EXISTS (SELECT 1 FROM iap.deliveries WHERE store = 'google' AND transaction_id = $1) AS delivered
        FROM revoked
        """
    )
}

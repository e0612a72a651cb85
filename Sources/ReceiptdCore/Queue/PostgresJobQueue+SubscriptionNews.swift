import Foundation

/// What recording one piece of a subscription's news found.
struct SubscriptionNewsRecord: Sendable, Equatable {
    /// The subscription has a player: its row exists, or the ledger knows who bought it.
    var known: Bool
    /// The news was written (not older than the row's `store_time`).
    var current: Bool
    /// The ledger already holds the news's transaction.
    var delivered: Bool
    /// What the row held before the news; nil when there was no row.
    var before: SubscriptionRereadPlanner.Known? = nil
}

extension PostgresJobQueue {
    /// The signed transaction of a JWS whose signature was verified before (a stored notification's, or one the
    /// caller verified): its payload read, not its signature checked again. Nil when it is not readable.
    static func verifiedTransaction(_ jws: String) -> SignedTransaction? {
        verifiedPayload(jws).flatMap { try? SignedTransaction(json: $0) }
    }

    /// The renewal info of a JWS signed inside a verified notification, or nil when it is not readable.
    static func verifiedRenewalInfo(_ jws: String?) -> AppleRenewalInfo? {
        jws.flatMap(verifiedPayload).flatMap { try? AppleRenewalInfo(json: $0) }
    }

    /// What `signed` and a notification's renewal info (a JWS inside it) and status say of its subscription now;
    /// nil for a transaction of no auto-renewable, or one an upgrade replaced.
    static func subscriptionSnapshot(
        of signed: SignedTransaction,
        renewal: (info: String?, status: Int?)
    ) -> SubscriptionSnapshot? {
        AppleSubscriptionReading.snapshot(
            of: signed,
            status: renewal.status.flatMap(AppleSubscriptionReading.Status.init(rawValue:)),
            renewal: verifiedRenewalInfo(renewal.info),
            now: Date()
        )
    }

    private static func verifiedPayload(_ jws: String) -> Data? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return Base64URL.decode(parts[1])
    }

    /// Writes `snapshot` (the subscription as the store's news says it is) unless the row holds newer news; a row
    /// is created only for a subscription whose buyer the ledger knows (`transaction_owners`). `requestRead` asks for
    /// a re-read from the store at once; otherwise the row's watch follows the news.
    static func recordSubscriptionNews(
        _ snapshot: SubscriptionSnapshot,
        originalTransactionID: String,
        requestRead: Bool,
        in session: DatabaseSession
    ) throws -> SubscriptionNewsRecord {
        let row = try session.execute(
            subscriptionNewsSQL,
            [
                snapshot.subscriptionID, snapshot.store.rawValue, snapshot.productID, snapshot.renewsTo,
                snapshot.groupID, snapshot.state.rawValue, milliseconds(snapshot.entitledUntil),
                milliseconds(snapshot.expiresAt), snapshot.autoRenew, snapshot.environment, snapshot.ownership,
                snapshot.latestTransactionID, originalTransactionID, milliseconds(snapshot.storeTime), requestRead,
            ]
        ).first
        return SubscriptionNewsRecord(
            known: row?["known"] == "t",
            current: row?["current"] == "t",
            delivered: row?["delivered"] == "t",
            before: row?["existed"] == "t"
                ? SubscriptionRereadPlanner.Known(
                    latestTransactionID: row?["prior_latest"],
                    expiresAtMilliseconds: row?["prior_expires_ms"].flatMap { Int64($0) }
                ) : nil
        )
    }

    /// An App Store notification's news of a subscription (`signed`, with the notification's `status`), written as it
    /// says; a re-read is asked at once only when the news leaves something open (``SubscriptionRereadPlanner``) and
    /// `rereads` (the daemon has Server API credentials). Otherwise the row's watch follows the news.
    static func recordNotifiedSubscriptionNews(
        _ snapshot: SubscriptionSnapshot,
        of signed: SignedTransaction,
        status: Int?,
        rereads: Bool,
        in session: DatabaseSession
    ) throws -> SubscriptionNewsRecord {
        let record = try recordSubscriptionNews(
            snapshot,
            originalTransactionID: signed.originalTransactionID,
            requestRead: false,
            in: session
        )
        guard rereads, record.current else { return record }
        let news = SubscriptionRereadPlanner.News(
            transactionID: signed.transactionID,
            purchaseDateMilliseconds: signed.purchaseDateMilliseconds,
            statusKnown: status.flatMap(AppleSubscriptionReading.Status.init(rawValue:)) != nil,
            renewalKnown: snapshot.renewalKnown
        )
        if SubscriptionRereadPlanner.decide(news, known: record.before).asksRead {
            _ = try session.execute(
                "UPDATE iap.subscriptions SET read_due_at = now() WHERE subscription_id = $1",
                [snapshot.subscriptionID]
            )
        }
        return record
    }

    /// Enqueues a later period of a known App Store subscription as its own order (`iap.enqueue_subscription_period`);
    /// false when the subscription is unknown or the ledger holds the period already.
    static func enqueueSubscriptionPeriod(
        _ transaction: SignedTransaction,
        jws: String,
        in session: DatabaseSession
    ) throws -> Bool {
        try enqueueSubscriptionPeriod(
            of: SubscriptionReadItem(transaction: transaction, signedTransaction: jws, snapshot: nil),
            in: session
        )
    }

    /// Enqueues the period `item` names as its own order, its job verifying `item.input` (a signed transaction, or
    /// Google's token); false when the subscription is unknown or the ledger holds the period already.
    static func enqueueSubscriptionPeriod(of item: SubscriptionReadItem, in session: DatabaseSession) throws -> Bool {
        let store = item.snapshot?.store ?? .apple
        let job = try session.execute(
            enqueueSubscriptionPeriodSQL,
            [store.rawValue + ":" + item.originalTransactionID, item.transactionID, item.productID, item.input]
        ).first?["job"]
        return job != nil
    }

    /// A later period's order and job: `$1` the subscription, `$2` the period's transaction id, `$3` its product, `$4`
    /// the input its job verifies.
    package static let enqueueSubscriptionPeriodSQL = "SELECT iap.enqueue_subscription_period($1, $2, $3, $4) AS job"

    /// `date` in milliseconds since 1970, as the subscription statements take it.
    static func milliseconds(_ date: Date?) -> Int64? {
        date.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
    }

    /// How news meets a subscription's row, for every writer (a settle's periods, a notification, a re-read): older
    /// than the row's `store_time`, or of an earlier period (a past period refunded, verified late), it changes
    /// nothing; a re-read already due stays due unless the news asks for one now; otherwise the watch follows the news,
    /// and a re-read the store refused (`read_failing_since`) is failing no more: the news says what it would have.
    static let subscriptionNewsUpsert = """
        ON CONFLICT (subscription_id) DO UPDATE
        SET product_id = excluded.product_id, renews_to = excluded.renews_to,
            group_id = coalesce(excluded.group_id, s.group_id), state = excluded.state,
            entitled_until = excluded.entitled_until, expires_at = excluded.expires_at, auto_renew = excluded.auto_renew,
            environment = excluded.environment, ownership = excluded.ownership,
            latest_transaction_id = excluded.latest_transaction_id, store_time = excluded.store_time, updated_at = now(),
            purchase_token = coalesce(excluded.purchase_token, s.purchase_token), read_failing_since = NULL,
            read_due_at = CASE WHEN s.read_due_at <= now() AND NOT coalesce(excluded.read_due_at <= now(), false)
                               THEN s.read_due_at ELSE excluded.read_due_at END
        WHERE (s.store_time IS NULL OR excluded.store_time >= s.store_time)
          AND (excluded.latest_transaction_id = s.latest_transaction_id OR s.expires_at IS NULL
               OR excluded.expires_at >= s.expires_at)
        """

    /// The news upsert: the player is the row's, else the buyer of the subscription's original transaction.
    /// Older than the row's `store_time`, nothing changes (`current` false). What the row held before is returned.
    package static let subscriptionNewsSQL = """
        WITH who AS (
            SELECT coalesce(s.user_id, o.user_id) AS user_id, coalesce(s.order_id, o.order_id) AS order_id,
                   s.subscription_id IS NOT NULL AS existed, s.latest_transaction_id AS prior_latest,
                   (extract(epoch FROM s.expires_at) * 1000)::bigint AS prior_expires_ms
            FROM (SELECT 1) AS one
            LEFT JOIN iap.subscriptions s ON s.subscription_id = $1
            LEFT JOIN iap.transaction_owners o ON o.original_transaction_id = $13
        ), written AS (
            INSERT INTO iap.subscriptions AS s (subscription_id, store, user_id, order_id, product_id, renews_to,
                                                group_id, state, entitled_until, expires_at, auto_renew, environment,
                                                ownership, latest_transaction_id, store_time, read_due_at)
            SELECT $1, $2, who.user_id, who.order_id, $3, $4, $5, $6, to_timestamp($7::bigint / 1000.0),
                   to_timestamp($8::bigint / 1000.0), $9::boolean, $10, $11, $12, to_timestamp($14::bigint / 1000.0),
                   CASE WHEN $15::boolean THEN now()
                        ELSE iap.subscription_read_due($6, to_timestamp($7::bigint / 1000.0)) END
            FROM who WHERE who.user_id IS NOT NULL
            \(subscriptionNewsUpsert)
            RETURNING 1
        )
        SELECT EXISTS (SELECT 1 FROM who WHERE user_id IS NOT NULL) AS known,
               EXISTS (SELECT 1 FROM written) AS current,
               EXISTS (SELECT 1 FROM iap.deliveries WHERE store = $2 AND transaction_id = $12) AS delivered,
               who.existed, who.prior_latest, who.prior_expires_ms
        FROM who
        """
}

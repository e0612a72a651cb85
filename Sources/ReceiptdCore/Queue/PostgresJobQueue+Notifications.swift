import Foundation

extension PostgresJobQueue: NotificationProcessing {
    /// One pass on one pooled connection: a failure rolls back the whole pass, so nothing of it stays.
    package func processNotifications(
        limit: Int,
        planner: NotificationPlanner,
        backoff: Backoff
    ) async throws -> [ProcessedNotification] {
        try await pool.withSession { session in
            try session.rollingBack { session in
                try Self.processPass(limit: limit, planner: planner, backoff: backoff, in: session)
            }
        }
    }

    /// Two statements (whole revocations, then Google's partial refunds), each committed on its own.
    package func sweepRevokedTransactions() async throws -> Int {
        let revoked = try await pool.execute(Self.notificationSQL.sweep).affectedRows
        let units = try await pool.execute(Self.notificationSQL.sweepPartialRefunds).first?.int("changed") ?? 0
        return revoked + units
    }

    /// One pass: claim, then each notification under its own savepoint, so that one failing transiently (a row a
    /// game's transaction holds) is put off alone while the others of the pass commit with their writes. The pass's
    /// results are written in one statement before the commit, and each next savepoint replaces the last in one
    /// round trip: a storm's notification costs only its action's statements.
    private static func processPass(
        limit: Int,
        planner: NotificationPlanner,
        backoff: Backoff,
        in session: DatabaseSession
    ) throws -> [ProcessedNotification] {
        _ = try session.execute("BEGIN")
        _ = try session.execute(claimSettings.without)
        let claimed = try session.execute(notificationSQL.claim, [limit]).namedRows
        _ = try session.execute(claimSettings.restored)
        guard !claimed.isEmpty else {
            _ = try session.execute("COMMIT")
            return []
        }
        var processed: [ProcessedNotification] = []
        var finished: [[(String, JSONText.Value)]] = []
        for (index, row) in claimed.enumerated() {
            let id = Int64(try row.int("id"))
            let store = try row.string("store")
            let type = try row.string("notification_type")
            if index == 0 {
                _ = try session.execute("SAVEPOINT notification")
            } else {
                // The last one's writes are kept; a savepoint rolled back to is still there, and released as well.
                _ = try session.pipeline([
                    SQLStatement("RELEASE SAVEPOINT notification"), SQLStatement("SAVEPOINT notification"),
                ])
            }
            do {
                let (result, error) = try apply(row, id: id, store: store, type: type, planner: planner, in: session)
                if let result { finished.append(Self.finishedRow(id, result, error)) }
                processed.append(ProcessedNotification(store: store, type: type, result: result))
            } catch let error as PostgresError where error.kind == .query {
                _ = try session.execute("ROLLBACK TO SAVEPOINT notification")
                if error.isTransient {
                    let delay = backoff.delay(afterAttempt: (try row.int("attempts")) + 1)
                    _ = try session.execute(
                        notificationSQL.markDeferred,
                        [id, delay.seconds, String(error.description.prefix(500))]
                    )
                    processed.append(ProcessedNotification(store: store, type: type, result: nil))
                } else {
                    // The database refused what this notification asks for (bad data): it would refuse it again.
                    finished.append(Self.finishedRow(id, .failed, String(error.description.prefix(500))))
                    processed.append(ProcessedNotification(store: store, type: type, result: .failed))
                }
            }
        }
        if !finished.isEmpty { _ = try session.execute(notificationSQL.markProcessed, [JSONText.rows(finished)]) }
        _ = try session.execute("COMMIT")
        return processed
    }

    /// One row of `markProcessed`'s parameter.
    private static func finishedRow(
        _ id: Int64,
        _ result: NotificationResult,
        _ error: String?
    ) -> [(String, JSONText.Value)] {
        [("id", .int(id)), ("result", .string(result.rawValue)), ("error", .optional(error))]
    }

    /// Plans one claimed notification and runs its action's statements; returns the result and the error to record
    /// (no result: the notification was put off to look again later, as a pending purchase is).
    private static func apply(
        _ row: QueryResult.Row,
        id: Int64,
        store: String,
        type: String,
        planner: NotificationPlanner,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        let signedAt = Int64(try row.int("signed_ms"))
        // Each store's payload is read and planned its own way; the actions are run alike.
        let action: NotificationAction
        var signedTransactionInfo: String?
        // Why Apple asks (CONSUMPTION_REQUEST's `consumptionRequestReason`).
        var consumptionRequestReason: String?
        // An auto-renewable's renewal info and status, as the notification carries them.
        var renewal: (info: String?, status: Int?) = (nil, nil)
        // The store's time of this news (`iap.deliveries.store_time`): Apple's signedDate, Google's event time.
        var storeTime = signedAt
        do {
            if store == Store.google.rawValue {
                let payload = try GoogleNotificationPayload(payload: try row.string("payload"))
                action = planner.googleAction(type: type, payload: payload, signedAtMilliseconds: signedAt)
                storeTime = payload.notification.eventTimeMillis.flatMap { Int64($0) } ?? signedAt
            } else {
                let payload = try StoredNotificationPayload(payload: try row.string("payload"))
                signedTransactionInfo = payload.signedTransactionInfo
                consumptionRequestReason = payload.consumptionRequestReason
                renewal = (payload.signedRenewalInfo, payload.subscriptionStatus)
                action = planner.action(
                    store: Store(rawValue: store) ?? .apple,
                    type: type,
                    subtype: row["subtype"],
                    transaction: payload.transaction,
                    hasData: payload.hasData,
                    appTransactionID: payload.appTransactionID,
                    signedAtMilliseconds: signedAt
                )
            }
        } catch let error as NotificationPayloadError {
            return (.failed, error.reason)
        }
        if case .applySubscription(let transaction) = action {
            return try applySubscription(
                transaction,
                jws: signedTransactionInfo,
                renewal: renewal,
                id: id,
                environment: row["environment"],
                rereads: planner.rereadsSubscriptions,
                in: session
            )
        }
        // Any other news about an auto-renewable's transaction (a refund, its reversal, a revocation, a type this
        // binary does not know) is the subscription's news too, written after the action's own statements.
        let outcome = try run(
            action,
            row,
            id: id,
            store: store,
            signedAt: signedAt,
            storeTime: storeTime,
            signedTransactionInfo: signedTransactionInfo,
            consumptionRequestReason: consumptionRequestReason,
            in: session
        )
        if store == Store.apple.rawValue, let jws = signedTransactionInfo, let signed = verifiedTransaction(jws),
            let snapshot = subscriptionSnapshot(of: signed, renewal: renewal)
        {
            _ = try recordNotifiedSubscriptionNews(
                snapshot,
                of: signed,
                status: renewal.status,
                rereads: planner.rereadsSubscriptions,
                in: session
            )
        }
        return outcome
    }

    /// Revokes the ledger row of `transactionID` (or remembers it revoked when it is not delivered yet), unless
    /// the row holds newer news than `storeTime`.
    private static func revoke(
        _ transactionID: String,
        reason: String,
        percentage: Int?,
        revokedAt: Int64,
        id: Int64,
        store: String,
        storeTime: Int64,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        let answer = try session.execute(
            notificationSQL.revoke,
            [transactionID, revokedAt, reason, percentage, id, store, storeTime]
        ).first
        if answer?["current"] == "f" { return (.superseded, nil) }
        return (answer?["delivered"] == "t" ? .revoked : .revokedUndelivered, nil)
    }

    /// Runs the statements of one planned action other than `applySubscription`, which `apply` runs itself.
    private static func run(
        _ action: NotificationAction,
        _ row: QueryResult.Row,
        id: Int64,
        store: String,
        signedAt: Int64,
        storeTime: Int64,
        signedTransactionInfo: String?,
        consumptionRequestReason: String?,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        switch action {
        case .applySubscription:
            preconditionFailure("apply runs applySubscription itself")
        case .record:
            return (.recorded, nil)
        case .ignore:
            return (.ignored, nil)
        case .fail(let reason):
            return (.failed, reason)
        case .revoke(let transactionID, let reason, let percentage, let revokedAt):
            return try revoke(
                transactionID,
                reason: reason,
                percentage: percentage,
                revokedAt: revokedAt,
                id: id,
                store: store,
                storeTime: storeTime,
                in: session
            )
        case .revokeSubscriptionPeriod(let transactionID, let token, let revokedAt):
            let revoked = try revoke(
                transactionID,
                reason: "voided",
                percentage: nil,
                revokedAt: revokedAt,
                id: id,
                store: store,
                storeTime: storeTime,
                in: session
            )
            _ = try rereadGoogleSubscription(token, in: session)
            return revoked
        case .reinstate(let transactionID):
            let counts = try session.execute(notificationSQL.reinstate, [transactionID, store, storeTime]).first
            if counts?["current"] == "f" { return (.superseded, nil) }
            let lifted = Int(counts?["lifted"] ?? "0") ?? 0
            let forgotten = Int(counts?["forgotten"] ?? "0") ?? 0
            return (lifted + forgotten > 0 ? .reinstated : .nothingToReinstate, nil)
        case .requestConsumption(let transaction):
            let environment = row["environment"] ?? transaction.environment ?? StoreEnvironment.production.rawValue
            let state = try session.execute(
                notificationSQL.requestConsumption,
                [
                    id, transaction.transactionID, transaction.appAccountToken?.uuidString, environment, signedAt,
                    consumptionRequestReason,
                ]
            ).first?["state"]
            return (state == "waiting" ? .consumptionRequested : .consumptionNotConsented, nil)
        case .requestRefundReview(let review):
            let inserted = try session.execute(
                notificationSQL.requestRefundReview,
                [id, review.token, review.orderID, review.accountID, review.eventTimeMilliseconds, review.reason]
            ).affectedRows
            // The same token again (another message about the same review) is the request already recorded.
            return (inserted == 1 ? .refundReviewRequested : .recorded, nil)
        case .settleCharge(let transaction):
            return try settleCharge(
                transaction,
                jws: signedTransactionInfo,
                id: id,
                environment: row["environment"],
                in: session
            )
        case .revokeUnits(let transactionID, let refunds):
            return try revokeUnits(transactionID, refunds: refunds, id: id, storeTime: storeTime, in: session)
        case .wakeGooglePurchase(let token):
            return try wakeGooglePurchase(token, id: id, in: session)
        case .googleSubscriptionNews(let token, let purchase):
            if try rereadGoogleSubscription(token, in: session) { return (.subscriptionUpdated, nil) }
            guard let purchase else { return (.recorded, nil) }
            return try settleGooglePurchase(purchase, id: id, signedAt: signedAt, in: session)
        case .googleSubscriptionRenewed(let token, let period, let originalID):
            if try rereadGoogleSubscription(token, in: session) { return (.subscriptionUpdated, nil) }
            return try awaitGoogleSubscription(period, originalID: originalID, id: id, signedAt: signedAt, in: session)
        case .settleGooglePurchase(let purchase):
            return try settleGooglePurchase(purchase, id: id, signedAt: signedAt, in: session)
        case .rescindConsent(let appTransactionID):
            _ = try session.execute(
                "SELECT iap.rescind_consent($1, $2, to_timestamp($3::bigint / 1000.0), $4::bigint)",
                [appTransactionID, row["environment"], signedAt, id]
            )
            return (.consentRescinded, nil)
        }
    }

    /// An auto-renewable's news: the subscription's row written as the news says (asking for a re-read, when
    /// `rereads`, only for what the news leaves open), then the period its transaction pays, when the ledger lacks it
    /// and no upgrade replaced it: a known subscription's later period its own order, a first period its checkout's
    /// (or an unclaimed payment), as a `ONE_TIME_CHARGE` is.
    private static func applySubscription(
        _ transaction: NotifiedTransaction,
        jws: String?,
        renewal: (info: String?, status: Int?),
        id: Int64,
        environment: String?,
        rereads: Bool,
        in session: DatabaseSession
    ) throws -> (NotificationResult?, String?) {
        guard let jws, let signed = verifiedTransaction(jws) else {
            return (.failed, "subscription news without a readable data.signedTransactionInfo")
        }
        // A transaction of no auto-renewable (a type Apple sends about any transaction) says nothing of
        // subscriptions; one an upgrade replaced says nothing of the subscription now, and its period is never paid
        // again (the upgrade's own period pays instead).
        guard signed.period != nil else { return (.ignored, nil) }
        guard let snapshot = subscriptionSnapshot(of: signed, renewal: renewal) else { return (.recorded, nil) }
        let record = try recordNotifiedSubscriptionNews(
            snapshot,
            of: signed,
            status: renewal.status,
            rereads: rereads,
            in: session
        )
        let news: NotificationResult = record.current ? .subscriptionUpdated : .superseded
        // Delivered already, or refunded before it was: nothing to pay.
        if record.delivered || signed.revocationDateMilliseconds != nil { return (news, nil) }
        if record.known {
            return (try enqueueSubscriptionPeriod(signed, jws: jws, in: session) ? .periodEnqueued : news, nil)
        }
        // A renewal of a subscription the ledger does not know yet (its first period still on its way) waits for it:
        // it must never pay the checkout order that first period is for. After a day it is an unclaimed payment.
        if signed.period?.reason == "RENEWAL" {
            let waited = Date().timeIntervalSince(signed.signedDate)
            if waited < renewalWaitLimit.seconds {
                _ = try session.execute(
                    notificationSQL.markDeferred,
                    [
                        id, min(max(waited / 4, 5), 900),
                        "a renewal of a subscription whose first period the ledger does not hold yet: waiting for it",
                    ]
                )
                return (nil, nil)
            }
            return try settleCharge(
                transaction,
                jws: jws,
                id: id,
                environment: environment,
                orderless: true,
                in: session
            )
        }
        return try settleCharge(transaction, jws: jws, id: id, environment: environment, in: session)
    }

    /// How long a renewal of a subscription the ledger does not know waits for its first period.
    static let renewalWaitLimit: Duration = .seconds(86_400)

    /// A purchase Apple reported itself: already delivered, enqueued for the order its token and product match
    /// (oldest checkout first; never when `orderless`), or recorded as an unclaimed payment.
    private static func settleCharge(
        _ transaction: NotifiedTransaction,
        jws: String?,
        id: Int64,
        environment: String?,
        orderless: Bool = false,
        in session: DatabaseSession
    ) throws -> (NotificationResult, String?) {
        let found = try session.execute(
            notificationSQL.chargeOrder,
            [
                transaction.transactionID, orderless ? String?.none : transaction.appAccountToken?.uuidString,
                transaction.productID,
            ]
        ).first
        if found?["delivered"] == "t" { return (.chargeAlreadyDelivered, nil) }
        if let order = found?["order_id"] {
            guard let jws else { return (.failed, "ONE_TIME_CHARGE without data.signedTransactionInfo") }
            _ = try session.execute("SELECT iap.enqueue_notified_charge($1, $2)", [order, jws])
            return (.chargeEnqueued, nil)
        }
        _ = try session.execute(
            notificationSQL.recordUnclaimedCharge,
            [
                transaction.transactionID, transaction.productID ?? "", transaction.quantity,
                transaction.purchaseDateMilliseconds, transaction.environment ?? environment,
                transaction.originalTransactionID, transaction.appAccountToken?.uuidString, id,
            ]
        )
        return (.chargeUnclaimed, nil)
    }

    /// Around the claim: no sort. Statistics taken between storms say nothing waits, and a plan that sorts every
    /// waiting notification then looks as cheap as the walk of `store_notifications_claim`; without a sort to fall
    /// back on, the claim walks the index whatever the statistics say.
    package static let claimSettings = (
        without: "SET LOCAL enable_sort = off",
        restored: "SET LOCAL enable_sort TO DEFAULT"
    )

    /// The processor's statements.
    package static let notificationSQL = (
        // Due, unprocessed, in Apple's order; one whose transaction has an earlier notification still unprocessed
        // waits for it (also one another daemon holds), so a refund and its reversal never apply swapped. It walks
        // store_notifications_claim in this order and stops after $1, each probe by store_notifications_waiting_
        // transaction: its cost does not grow with the backlog (a test reads its plan over 50,000 waiting).
        claim: """
        SELECT n.id, n.store, n.notification_type, n.subtype, n.environment, n.payload::text AS payload, n.attempts,
               (extract(epoch FROM coalesce(n.signed_at, n.received_at)) * 1000)::bigint AS signed_ms
        FROM iap.store_notifications n
        WHERE n.processed_at IS NULL AND n.run_at <= now() AND NOT n.awaiting_lookup
          AND NOT EXISTS (
              SELECT 1 FROM iap.store_notifications e
              WHERE e.transaction_id = n.transaction_id AND e.store = n.store AND e.processed_at IS NULL
                AND (coalesce(e.signed_at, e.received_at), e.id) < (coalesce(n.signed_at, n.received_at), n.id))
        ORDER BY coalesce(n.signed_at, n.received_at), n.id
        LIMIT $1
        FOR UPDATE OF n SKIP LOCKED
        """,
        // The pass's processed notifications, each with its result and error: one statement for them all.
        markProcessed: """
        UPDATE iap.store_notifications n SET processed_at = now(), result = f.result, error = f.error,
            attempts = n.attempts + 1
        FROM jsonb_to_recordset($1::jsonb) AS f (id bigint, result text, error text)
        WHERE n.id = f.id
        """,
        markDeferred: """
        UPDATE iap.store_notifications SET attempts = attempts + 1, run_at = now() + make_interval(secs => $2), error = $3
        WHERE id = $1
        """,
        // Remembered whatever the ledger holds; the ledger row, if any, revoked once (its trigger tells the game)
        // and dated $7 (store_time). Older than the row's store_time ($7): nothing changes, `current` is false.
        // A prorated refund ($3 `refund_prorated`, share $4) leaves the row delivered with that share and its
        // whole units revoked, and only ever raises them; a refund of it all revokes the row, whatever share went
        // before. A smaller or equal share, or any refund of a revoked row, only dates the row.
        revoke: """
        WITH ledger AS (
            SELECT store_time FROM iap.deliveries WHERE store = $6 AND transaction_id = $1 FOR UPDATE
        ), news AS (
            SELECT NOT EXISTS (SELECT 1 FROM ledger WHERE store_time > to_timestamp($7::bigint / 1000.0)) AS current
        ), remembered AS (
            INSERT INTO iap.revoked_transactions AS r (store, transaction_id, revoked_at, revocation_reason,
                                                       revocation_percentage, notification_id)
            SELECT $6, $1, to_timestamp($2::bigint / 1000.0), $3, $4::int, $5::bigint FROM news WHERE news.current
            ON CONFLICT (store, transaction_id) DO UPDATE SET revoked_at = excluded.revoked_at,
                revocation_reason = excluded.revocation_reason, revocation_percentage = excluded.revocation_percentage,
                notification_id = excluded.notification_id, recorded_at = now()
            WHERE excluded.revocation_reason <> 'refund_prorated'
               OR (r.revocation_reason = 'refund_prorated' AND r.revocation_percentage < excluded.revocation_percentage)
        ), revoked AS (
            UPDATE iap.deliveries SET revoked_at = to_timestamp($2::bigint / 1000.0), revocation_reason = $3,
                revocation_percentage = NULL, store_time = to_timestamp($7::bigint / 1000.0)
            WHERE store = $6 AND transaction_id = $1 AND revoked_at IS NULL AND (SELECT current FROM news)
              AND $3 <> 'refund_prorated'
            RETURNING transaction_id
        ), prorated AS (
            UPDATE iap.deliveries SET revocation_percentage = $4::int, revocation_reason = $3,
                revoked_quantity = greatest(revoked_quantity, iap.prorated_units(quantity, $4::int)),
                store_time = to_timestamp($7::bigint / 1000.0)
            WHERE store = $6 AND transaction_id = $1 AND revoked_at IS NULL AND (SELECT current FROM news)
              AND $3 = 'refund_prorated' AND coalesce(revocation_percentage, 0) < $4::int
            RETURNING transaction_id
        ), dated AS (
            -- Revoked already, or as much of it: only the news's time is kept.
            UPDATE iap.deliveries SET store_time = to_timestamp($7::bigint / 1000.0)
            WHERE store = $6 AND transaction_id = $1 AND (SELECT current FROM news)
              AND (revoked_at IS NOT NULL OR ($3 = 'refund_prorated' AND coalesce(revocation_percentage, 0) >= $4::int))
            RETURNING transaction_id
        )
        SELECT EXISTS (SELECT 1 FROM ledger) AS delivered, (SELECT current FROM news) AS current
        """,
        // A revocation, or a prorated refund's share, is lifted: nothing of it is owed to the game any more. What the
        // game had handled is owed again: a whole revocation handled, all the units (granted_at cleared); otherwise
        // the units it took back of a granted row (reinstated_quantity, granted_at kept). An order owed units again
        // is verified again and announced as a settle announces it. The row is dated $3 (store_time); older than its
        // store_time, nothing changes and `current` is false.
        reinstate: """
        WITH ledger AS (
            SELECT store_time FROM iap.deliveries WHERE store = $2 AND transaction_id = $1 FOR UPDATE
        ), news AS (
            SELECT NOT EXISTS (SELECT 1 FROM ledger WHERE store_time > to_timestamp($3::bigint / 1000.0)) AS current
        ), forgotten AS (
            DELETE FROM iap.revoked_transactions WHERE store = $2 AND transaction_id = $1 AND (SELECT current FROM news)
            RETURNING transaction_id
        ), lifted AS (
            UPDATE iap.deliveries d SET revoked_at = NULL, revocation_reason = NULL, revocation_percentage = NULL,
                granted_at = CASE WHEN d.revocation_handled_at IS NULL THEN d.granted_at END,
                reinstated_quantity = CASE WHEN d.revocation_handled_at IS NOT NULL OR d.granted_at IS NULL THEN 0
                                           ELSE least(d.quantity, d.reinstated_quantity + d.revocation_handled_quantity)
                                      END,
                revocation_handled_at = NULL, revoked_quantity = 0, revocation_handled_quantity = 0,
                revocation_handled_percentage = 0, store_time = to_timestamp($3::bigint / 1000.0)
            WHERE d.store = $2 AND d.transaction_id = $1 AND (SELECT current FROM news)
              AND (d.revoked_at IS NOT NULL OR d.revoked_quantity > 0 OR d.revocation_percentage IS NOT NULL)
            RETURNING d.order_id, d.user_id, d.granted_at IS NULL OR d.reinstated_quantity > 0 AS owed
        ), dated AS (
            -- Nothing revoked: only the news's time is kept.
            UPDATE iap.deliveries SET store_time = to_timestamp($3::bigint / 1000.0)
            WHERE store = $2 AND transaction_id = $1 AND (SELECT current FROM news)
              AND revoked_at IS NULL AND revoked_quantity = 0 AND revocation_percentage IS NULL
            RETURNING transaction_id
        ), reopened AS (
            UPDATE iap.orders o SET status = 'verified'
            FROM lifted l WHERE o.order_id = l.order_id AND l.owed AND o.status <> 'verified'
            RETURNING o.order_id
        )
        SELECT (SELECT count(*) FROM lifted) AS lifted, (SELECT count(*) FROM forgotten) AS forgotten,
               (SELECT count(*) FROM reopened) AS reopened, (SELECT current FROM news) AS current,
               (SELECT count(pg_notify('iap_verified', json_build_object('order_id', l.order_id, 'user_id', l.user_id)::text))
                FROM lifted l WHERE l.owed) AS announced
        """,
        // The user: the ledger row's, else an order's with the transaction's token, else an unclaimed payment's.
        // Apple decides about 12 hours after it signed the request. Without the player's consent nothing may be
        // sent: the request is answered by policy at once, and the game is not asked.
        requestConsumption: """
        WITH who AS (
            SELECT coalesce(
                (SELECT user_id FROM iap.deliveries WHERE store = 'apple' AND transaction_id = $2),
                (SELECT user_id FROM iap.orders WHERE app_account_token = $3::uuid
                 ORDER BY checkout_at NULLS LAST, created_at, order_id LIMIT 1),
                (SELECT user_id FROM iap.unclaimed_payments WHERE transaction_id = $2)) AS user_id,
                (SELECT order_id FROM iap.deliveries WHERE store = 'apple' AND transaction_id = $2) AS order_id
        ), consent AS (
            SELECT EXISTS (SELECT 1 FROM iap.consumption_consent c, who
                           WHERE c.user_id = who.user_id AND c.consented) AS given
        )
        INSERT INTO iap.refund_requests (notification_id, request_id, store, transaction_id, environment, user_id,
                                         order_id, reason, signed_at, received_at, answer_by, state, answered_by,
                                         answered_at, last_error)
        SELECT $1::bigint, n.notification_id, 'apple', $2, $4, who.user_id, who.order_id, $6,
               to_timestamp($5::bigint / 1000.0), now(), to_timestamp($5::bigint / 1000.0) + interval '12 hours',
               CASE WHEN consent.given THEN 'waiting' ELSE 'answered' END,
               CASE WHEN consent.given THEN NULL ELSE 'policy' END,
               CASE WHEN consent.given THEN NULL ELSE now() END,
               CASE WHEN consent.given THEN NULL ELSE 'no consent' END
        FROM who, consent, iap.store_notifications n
        WHERE n.id = $1::bigint
        ON CONFLICT (request_id, store) DO UPDATE SET state = iap.refund_requests.state
        RETURNING state
        """,
        // Google's chargeback review: the user of the order's ledger row (its first line's id is the order id), else
        // of an order bound to the buyer's account, else of an unclaimed payment. Google decides 24 hours after the
        // event; consent is Apple's rule only. The same token twice is one request (nothing inserted).
        requestRefundReview: """
        WITH who AS (
            SELECT coalesce(
                (SELECT user_id FROM iap.deliveries WHERE store = 'google' AND transaction_id = $3),
                (SELECT user_id FROM iap.orders WHERE account_id = $4 AND $4 IS NOT NULL
                 ORDER BY checkout_at NULLS LAST, created_at, order_id LIMIT 1),
                (SELECT user_id FROM iap.unclaimed_payments WHERE transaction_id = $3)) AS user_id,
                (SELECT order_id FROM iap.deliveries WHERE store = 'google' AND transaction_id = $3) AS order_id
        )
        INSERT INTO iap.refund_requests (notification_id, request_id, store, transaction_id, environment, user_id,
                                         order_id, reason, signed_at, received_at, answer_by, state)
        SELECT $1::bigint, $2, 'google', $3, 'Production', who.user_id, who.order_id, $6,
               to_timestamp($5::bigint / 1000.0), now(), to_timestamp($5::bigint / 1000.0) + interval '24 hours',
               'waiting'
        FROM who
        ON CONFLICT (request_id, store) DO NOTHING
        """,
        // Whether the ledger has the transaction, and the order it pays: same product and token, not full.
        chargeOrder: """
        SELECT EXISTS (SELECT 1 FROM iap.deliveries WHERE store = 'apple' AND transaction_id = $1) AS delivered,
               (SELECT order_id FROM iap.orders
                WHERE app_account_token = $2::uuid AND product_id = $3 AND outcome IS DISTINCT FROM 'full'
                ORDER BY checkout_at NULLS LAST, created_at, order_id LIMIT 1) AS order_id
        """,
        recordUnclaimedCharge: """
        INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, environment,
                                            original_transaction_id, app_account_token, notification_id)
        VALUES ($1, $2, greatest($3::int, 1), to_timestamp($4::bigint / 1000.0), $5, $6, $7::uuid, $8::bigint)
        ON CONFLICT (transaction_id) DO NOTHING
        """,
        // A settle that read the ledger's revocations before one committed may have delivered the transaction
        // after: the revocation catches up with the row here (a day back is far beyond any such race).
        sweep: """
        UPDATE iap.deliveries d SET revoked_at = CASE WHEN r.revocation_reason <> 'refund_prorated' THEN r.revoked_at END,
            revocation_reason = r.revocation_reason,
            revocation_percentage = CASE WHEN r.revocation_reason = 'refund_prorated' THEN r.revocation_percentage END,
            revoked_quantity = CASE WHEN r.revocation_reason = 'refund_prorated'
                                    THEN greatest(d.revoked_quantity, iap.prorated_units(d.quantity, r.revocation_percentage))
                                    ELSE d.revoked_quantity END
        FROM iap.revoked_transactions r
        WHERE r.recorded_at > now() - interval '1 day' AND d.store = r.store AND d.transaction_id = r.transaction_id
          AND d.revoked_at IS NULL
          AND (r.revocation_reason <> 'refund_prorated' OR coalesce(d.revocation_percentage, 0) < r.revocation_percentage)
        """,
        // The same for quantity-based partial refunds recorded while their purchase was being delivered.
        sweepPartialRefunds: """
        SELECT iap.revoke_refunded_units(ARRAY(SELECT DISTINCT transaction_id FROM iap.google_partial_refunds
                                               WHERE recorded_at > now() - interval '1 day')) AS changed
        """
    )
}

import Foundation

extension PostgresJobQueue {
    /// Settles verified answers in one transaction: ledger rows, every touched order, the jobs, their attempts,
    /// and the active jobs of orders these receipts completed. A job that is no longer ours is `.abandoned` and
    /// writes nothing. Results come in the order of `answers`.
    ///
    /// Two round trips for the whole batch: one pipeline locks and reads what the plans need, the other writes
    /// everything in one statement and commits. Settling many answers per statement and commit is what makes the
    /// job path cheap: statement start-up, not the rows, was most of the database's work per order.
    package func recordVerified(_ answers: [VerifiedAnswer]) async throws -> [Settlement] {
        // A concurrent delivery of the same transaction (for another user) makes a plan stale: plan again.
        for _ in 0..<5 {
            do {
                return try await pool.withSession { [owner, planner, unclaimedSince] session in
                    try session.rollingBack { session in
                        try Self.settle(
                            answers,
                            owner: owner,
                            planner: planner,
                            unclaimedSince: unclaimedSince,
                            in: session
                        )
                    }
                }
            } catch let error as PostgresError where error.isRetryableConflict || error.isUniqueViolation {
                continue
            }
        }
        throw PostgresError(
            kind: .query,
            message: "jobs \(answers.map(\.job.id)): gave up after repeated delivery conflicts"
        )
    }

    /// Settles a batch, each answer's own result. When a row lock held elsewhere (a game server's transaction
    /// left open) makes the batch time out, each answer is settled on its own: only those that need the locked
    /// rows fail (with the transient lock timeout), and the others of the batch are not held up by them.
    func recordEach(_ answers: [VerifiedAnswer]) async -> [Result<Settlement, any Error>] {
        do {
            return try await recordVerified(answers).map { .success($0) }
        } catch let error as PostgresError where error.isLockTimeout && answers.count > 1 {
            var results: [Result<Settlement, any Error>] = []
            for answer in answers {
                do {
                    results.append(.success(try await recordVerified([answer])[0]))
                } catch {
                    results.append(.failure(error))
                }
            }
            return results
        } catch {
            return answers.map { _ in .failure(error) }
        }
    }

    /// The read pipeline's statements. Row sets from a `jsonb` parameter go through `= ANY (ARRAY(…))` wherever
    /// they meet a table: the planner guesses 100 rows for a set-returning function and would scan whole tables.
    package static let settleReads = (
        // The users' open orders and the jobs' own orders, locked in order_id order (as enqueue_receipt locks them).
        orders: """
        SELECT order_id, user_id, product_id, quantity, delivered_quantity, (extract(epoch FROM created_at) * 1000)::bigint AS created_ms,
               (extract(epoch FROM checkout_at) * 1000)::bigint AS checkout_ms, app_account_token, account_id
        FROM iap.orders
        WHERE order_id = ANY (ARRAY(
            SELECT order_id FROM iap.orders
            WHERE user_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) AND outcome IS DISTINCT FROM 'full'
            UNION
            SELECT jsonb_array_elements_text($2::jsonb)))
        ORDER BY order_id
        FOR UPDATE
        """,
        // The jobs this daemon holds; the reading keeps those still `running`. The state is not asked here: the
        // planner would read `jobs_running_lease` whole (every running job, and the dead entries of jobs that ran)
        // beside the primary key for a handful of ids, trusting statistics from a quieter queue.
        jobs: """
        SELECT id, state FROM iap.jobs
        WHERE id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)::bigint)) AND locked_by = $2
        ORDER BY id
        FOR UPDATE
        """,
        delivered: """
        SELECT transaction_id, order_id FROM iap.deliveries WHERE transaction_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
        """,
        owners: """
        SELECT original_transaction_id, user_id FROM iap.transaction_owners
        WHERE original_transaction_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
        """,
        // Transactions a store reported revoked (a refund before delivery): nothing delivers them, whatever the input says.
        revoked: """
        SELECT store, transaction_id, revocation_reason, revocation_percentage FROM iap.revoked_transactions
        WHERE transaction_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
        """,
        // The catalogue's kinds of the batch's products: the ledger's product_kind, Google's finalizing call.
        products: """
        SELECT store, product_id, kind, store_kind, periods FROM iap.products
        WHERE product_id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))
        """,
        // The players whose orders carry these app account tokens (orders_app_account_token).
        tokenOwners: """
        SELECT DISTINCT app_account_token::text AS app_account_token, user_id FROM iap.orders
        WHERE app_account_token = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)::uuid))
        """,
        // The Google subscriptions of the tokens new purchases replaced (read only when a batch has such).
        continued: """
        SELECT purchase_token, subscription_id FROM iap.subscriptions
        WHERE purchase_token = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) AND store = 'google'
        """
    )

    private static func settle(
        _ answers: [VerifiedAnswer],
        owner: String,
        planner: DeliveryPlanner,
        unclaimedSince: Date?,
        in session: DatabaseSession
    ) throws -> [Settlement] {
        let transactions = answers.flatMap(\.transactions)
        let reads = try session.pipeline([
            SQLStatement("BEGIN"),
            SQLStatement(
                settleReads.orders,
                [
                    JSONText.array(Array(Set(answers.map(\.job.userID)))),
                    JSONText.array(answers.map(\.job.order.orderID)),
                ]
            ),
            SQLStatement(settleReads.jobs, [JSONText.array(answers.map { String($0.job.id) }), owner]),
            SQLStatement(settleReads.delivered, [JSONText.array(transactions.map(\.transactionID))]),
            SQLStatement(settleReads.owners, [JSONText.array(Array(Set(transactions.map(\.originalTransactionID))))]),
            SQLStatement(settleReads.revoked, [JSONText.array(transactions.map(\.transactionID))]),
            SQLStatement(settleReads.products, [JSONText.array(Array(Set(transactions.map(\.productID))))]),
        ])
        let read = try SettleReading(reads)
        // A remembered revocation makes the purchase revoked in every answer: the planner's rules for a cancelled
        // purchase apply (nothing delivered, not an unclaimed payment).
        var answers = read.revoked.isEmpty ? answers : answers.map { $0.revoking(read.revoked) }
        // A Google subscription bought to replace another (an upgrade, a resubscription before expiry) continues the
        // subscription of the token it replaced (or of its own token, once it took that subscription over).
        let linked = answers.flatMap { answer in
            answer.transactions.compactMap { purchase in
                purchase.subscription.flatMap { snapshot in
                    snapshot.replacesToken.map { [snapshot.purchaseToken, $0].compactMap { $0 } }
                }
            }
        }
        if !linked.isEmpty {
            let tokens = Array(Set(linked.joined()))
            let continued = try session.execute(settleReads.continued, [JSONText.array(tokens)]).namedRows
            let map = Dictionary(
                try continued.map { (try $0.string("purchase_token"), try $0.string("subscription_id")) },
                uniquingKeysWith: { first, _ in first }
            )
            if !map.isEmpty { answers = answers.map { $0.continuing(map) } }
        }
        var ledger = LedgerView(orders: read.orders, delivered: read.delivered, owners: read.owners)
        // A purchase never delivered belongs to the player whose order carries its app account token (read only when
        // a batch has such a purchase).
        let unownedTokens = Set(
            answers.flatMap(\.transactions).filter { read.owners[$0.originalTransactionID] == nil }.compactMap(
                \.appAccountToken
            )
        )
        if !unownedTokens.isEmpty {
            for row in try session.execute(
                settleReads.tokenOwners,
                [JSONText.array(unownedTokens.map { $0.uuidString.lowercased() })]
            ).namedRows {
                guard let token = UUID(uuidString: try row.string("app_account_token")) else { continue }
                ledger.tokenOwners[token, default: []].insert(try row.string("user_id"))
            }
        }
        let running = read.runningJobs

        var results: [Settlement] = []
        var settled: [(VerifiedAnswer, DeliveryPlan)] = []
        for answer in answers {
            // A job that is not ours any more, or whose order an earlier receipt of this batch completed
            // (that receipt's settle supersedes it), writes nothing.
            guard running.contains(answer.job.id), !ledger.completed.contains(answer.job.order.orderID) else {
                results.append(Settlement(recording: .abandoned, plan: nil))
                continue
            }
            // Before the plan takes this answer's deliveries in: a replay is what was delivered before it.
            let replay = ledger.replay(in: answer)
            guard var plan = ledger.plan(answer, planner: planner) else {
                results.append(Settlement(recording: .abandoned, plan: nil))
                continue
            }
            plan.replay = replay
            results.append(Settlement(recording: .recorded(.succeeded), plan: plan))
            settled.append((answer, plan))
        }
        guard !settled.isEmpty else {
            try session.execute("ROLLBACK")
            return results
        }
        // Later periods a receipt listed are delivered to orders of their own, which exist before their rows.
        var writes: [SQLStatement] = []
        appendRows(
            openRenewalOrders,
            settled.flatMap { answer, plan in
                plan.renewalOrders.map {
                    [
                        ("order_id", .string($0.orderID)), ("user_id", .string(answer.job.userID)),
                        ("product_id", .string($0.productID)),
                    ]
                }
            },
            to: &writes
        )
        writes +=
            [
                settleStatement(
                    settled,
                    owner: owner,
                    orders: ledger,
                    catalogue: read.catalogue,
                    proratedShares: read.proratedShares
                )
            ]
            + followUps(settled, ledger: ledger, catalogue: read.catalogue, unclaimedSince: unclaimedSince)
            + [SQLStatement("COMMIT")]
        _ = try session.pipeline(writes)
        return results
    }

    /// The statements a batch needs beside its write, each only when it has something to do: learning products'
    /// kinds, revoking units Google reports refunded, closing orders its receipts completed, flagging other users' purchases, recording unclaimed payments, and telling game servers
    /// which orders received goods.
    private static func followUps(
        _ settled: [(VerifiedAnswer, DeliveryPlan)],
        ledger: LedgerView,
        catalogue: ProductCatalogue,
        unclaimedSince: Date?
    ) -> [SQLStatement] {
        var writes: [SQLStatement] = []
        appendRows(
            learnProducts,
            catalogue.learned(from: settled.flatMap { $0.0.transactions }).map { learned in
                [
                    ("store", .string(learned.key.store.rawValue)), ("product_id", .string(learned.key.productID)),
                    ("kind", .string(learned.kind.rawValue)),
                ]
            },
            to: &writes
        )
        appendRows(
            revokeStoreRefundedUnits,
            settled.flatMap { $0.0.transactions }.filter { $0.store == .google && $0.refundedQuantity > 0 }.map {
                [("transaction_id", .string($0.transactionID)), ("units", .int(Int64($0.refundedQuantity)))]
            },
            to: &writes
        )
        appendRows(
            closeCompletedOrders,
            settled.flatMap { answer, plan in
                plan.ordersCompletedElsewhere.map { [("order_id", .string($0)), ("job_id", .int(answer.job.id))] }
            },
            to: &writes
        )
        appendRows(
            flagForeignPurchases,
            settled.flatMap { answer, plan in
                plan.foreignPurchases.map { foreign in
                    [
                        ("job_id", .int(answer.job.id)), ("order_id", .string(answer.job.order.orderID)),
                        ("user_id", .string(answer.job.userID)),
                        ("original_id", .string(foreign.originalTransactionID)),
                        ("owner", .string(foreign.ownerUserID)),
                    ]
                }
            },
            to: &writes
        )
        appendRows(
            distrustReplays,
            settled.filter { $0.1.replay != nil }.map { answer, _ in
                [
                    ("user_id", .string(answer.job.userID)), ("store", .string(answer.store.rawValue)),
                    ("order_id", .string(answer.job.order.orderID)),
                ]
            },
            to: &writes
        )
        var unclaimed: [String: [(String, JSONText.Value)]] = [:]
        for (answer, plan) in settled {
            // A Google purchase that paid nothing is left unacknowledged, so Google refunds it: not a payment to assign.
            for entry in plan.unclaimed where entry.store == .apple && !ledger.isDelivered(entry.transactionID) {
                unclaimed[entry.transactionID] = [
                    ("transaction_id", .string(entry.transactionID)),
                    ("original_id", .string(entry.originalTransactionID)),
                    ("product_id", .string(entry.productID)), ("quantity", .optional(entry.quantity)),
                    ("purchase_ms", .int(entry.purchaseDateMilliseconds ?? 0)),
                    ("environment", .string(answer.environment.rawValue)), ("user_id", .string(answer.job.userID)),
                    ("order_id", .string(answer.job.order.orderID)), ("job_id", .int(answer.job.id)),
                ]
            }
        }
        if !unclaimed.isEmpty {
            writes.append(
                SQLStatement(
                    recordUnclaimed,
                    [
                        JSONText.rows(unclaimed.keys.sorted().compactMap { unclaimed[$0] }),
                        unclaimedSince.map { ISO8601DateFormatter().string(from: $0) },
                    ]
                )
            )
        }
        appendRows(applySubscriptions, subscriptionRows(settled), to: &writes)
        appendRows(
            transferSubscriptions,
            settled.flatMap { answer, plan in
                plan.transfers.map {
                    [("subscription_id", .string($0.subscriptionID)), ("user_id", .string(answer.job.userID))]
                }
            },
            to: &writes
        )
        let receiving = settled.flatMap { answer, plan in
            Set(plan.deliveries.map(\.orderID)).sorted().map { (answer.job.userID, $0) }
        }
        if !receiving.isEmpty {
            writes.append(
                SQLStatement(
                    notifyVerified,
                    [
                        JSONText.array(
                            receiving.map { user, order in
                                JSONText.object([("order_id", .string(order)), ("user_id", .string(user))])
                            }
                        )
                    ]
                )
            )
        }
        return writes
    }

    /// Appends `sql` with `rows` as its one parameter (`$1`, a `jsonb` array of objects), when there are any.
    private static func appendRows(
        _ sql: String,
        _ rows: [[(String, JSONText.Value)]],
        to writes: inout [SQLStatement]
    ) {
        guard !rows.isEmpty else { return }
        writes.append(SQLStatement(sql, [JSONText.rows(rows)]))
    }

    /// The subscriptions the batch's delivered periods say, each once (its newest news: the latest store time, then
    /// the latest period, as a receipt says every period at once), with the player and the order of its earliest
    /// period delivered (the checkout, for a subscription this batch starts).
    private static func subscriptionRows(_ settled: [(VerifiedAnswer, DeliveryPlan)]) -> [[(String, JSONText.Value)]] {
        var newest: [String: (SubscriptionSnapshot, String, String)] = [:]
        var earliest: [String: (Int64, String)] = [:]
        // Only an answer's transactions that carry a subscription are looked for among its deliveries: a batch of
        // anything else costs one pass over its transactions.
        for (answer, plan) in settled {
            for purchase in answer.transactions {
                guard let snapshot = purchase.subscription,
                    let delivery = plan.deliveries.first(where: { $0.transactionID == purchase.transactionID })
                else { continue }
                let id = snapshot.subscriptionID
                if earliest[id].map({ $0.0 > delivery.purchaseDateMilliseconds }) ?? true {
                    earliest[id] = (delivery.purchaseDateMilliseconds, delivery.orderID)
                }
                if let known = newest[id]?.0,
                    (known.storeTime, known.expiresAt ?? .distantPast)
                        > (snapshot.storeTime, snapshot.expiresAt ?? .distantPast)
                {
                    continue
                }
                newest[id] = (snapshot, answer.job.userID, earliest[id]!.1)
            }
        }
        for (id, first) in earliest { newest[id]?.2 = first.1 }
        return newest.keys.sorted().compactMap { newest[$0] }.map { snapshot, user, order in
            [
                ("subscription_id", .string(snapshot.subscriptionID)), ("store", .string(snapshot.store.rawValue)),
                ("user_id", .string(user)), ("order_id", .string(order)), ("product_id", .string(snapshot.productID)),
                ("renews_to", .optional(snapshot.renewsTo)), ("group_id", .optional(snapshot.groupID)),
                ("state", .string(snapshot.state.rawValue)),
                ("entitled_ms", Self.millisecondsValue(snapshot.entitledUntil)),
                ("expires_ms", Self.millisecondsValue(snapshot.expiresAt)),
                ("auto_renew", .bool(snapshot.autoRenew)), ("renewal_known", .bool(snapshot.renewalKnown)),
                ("environment", .string(snapshot.environment)),
                ("ownership", .string(snapshot.ownership)),
                ("latest_transaction_id", .optional(snapshot.latestTransactionID)),
                ("store_ms", Self.millisecondsValue(snapshot.storeTime)),
                ("purchase_token", .optional(snapshot.purchaseToken)),
            ]
        }
    }

    /// `date` in milliseconds since 1970, or null.
    private static func millisecondsValue(_ date: Date?) -> JSONText.Value {
        milliseconds(date).map { .int($0) } ?? .null
    }

    /// The owed finalization's fields of the delivery row of `transactionID`, by the product's kind; none when
    /// nothing is owed, or the call is owed with another row (a subscription's first period).
    private static func finalizationFields(
        _ finalization: GoogleFinalization?,
        of transactionID: String,
        kind: ProductKind?
    ) -> [(String, JSONText.Value)] {
        guard let finalization = finalization?.owed(for: kind),
            finalization.transactionID.map({ $0 == transactionID }) ?? true
        else { return [] }
        return [
            ("finalize", .string(finalization.action.rawValue)), ("finalize_product", .string(finalization.productID)),
            ("purchase_token", .string(finalization.purchaseToken)),
            ("overdue_s", .int(Int64(finalization.overdue.seconds.rounded()))),
        ]
    }

    /// A delivery row's kind, ownership, price and offer; only those known, so that a receipt's row stays short.
    private static func detailFields(
        _ purchase: VerifiedPurchase?,
        kind: ProductKind?
    ) -> [(String, JSONText.Value)] {
        var fields: [(String, JSONText.Value)] = []
        if let kind { fields.append(("product_kind", .string(kind.rawValue))) }
        if let subscription = purchase?.subscription {
            fields.append(("subscription_id", .string(subscription.subscriptionID)))
            fields.append(("period_end_ms", Self.millisecondsValue(subscription.expiresAt)))
        }
        guard let details = purchase?.details else { return fields }
        if let ownership = details.ownership { fields.append(("ownership", .string(ownership))) }
        if let price = details.priceMilliunits { fields.append(("price_milli", .int(price))) }
        if let currency = details.currency { fields.append(("currency", .string(currency))) }
        if let offerType = details.offerType { fields.append(("offer_type", .string(offerType))) }
        if let offerID = details.offerID { fields.append(("offer_id", .string(offerID))) }
        if let option = details.purchaseOptionID { fields.append(("purchase_option_id", .string(option))) }
        return fields
    }

    private static func settleStatement(
        _ settled: [(VerifiedAnswer, DeliveryPlan)],
        owner: String,
        orders: LedgerView,
        catalogue: ProductCatalogue,
        proratedShares: [RevokedTransactionKey: Int]
    ) -> SQLStatement {
        let deliveries = settled.flatMap { answer, plan in
            plan.deliveries.map { delivery -> [(String, JSONText.Value)] in
                let purchase = answer.transactions.first { $0.transactionID == delivery.transactionID }
                let kind = purchase.flatMap(catalogue.kind(of:))
                // Refunded in part before delivery: delivered with that share (and, in SQL, its whole units) revoked.
                let share = proratedShares[
                    RevokedTransactionKey(store: answer.store, transactionID: delivery.transactionID)
                ]
                let prorated: [(String, JSONText.Value)] =
                    share.map { share in
                        [
                            ("revocation_percentage", .int(Int64(share))),
                            ("revocation_reason", .string(RevokedTransactionKey.proratedReason)),
                        ]
                    } ?? []
                return [
                    ("transaction_id", .string(delivery.transactionID)), ("order_id", .string(delivery.orderID)),
                    ("user_id", .string(answer.job.userID)),
                    ("product_id", .string(orders.productID(of: delivery.orderID))),
                    ("quantity", .int(Int64(delivery.quantity))),
                    ("purchase_ms", .int(delivery.purchaseDateMilliseconds)),
                    ("environment", .string(answer.environment.rawValue)), ("job_id", .int(answer.job.id)),
                    ("store", .string(answer.store.rawValue)),
                ] + Self.detailFields(purchase, kind: kind)
                    + Self.finalizationFields(answer.finalization, of: delivery.transactionID, kind: kind)
                    + prorated + (purchase.map(catalogue.recordsGranted) == true ? [("granted", .bool(true))] : [])
            }
        }
        let owners = settled.flatMap { answer, plan in
            plan.newOwners.map { delivery -> [(String, JSONText.Value)] in
                [
                    ("original_id", .string(delivery.originalTransactionID)), ("user_id", .string(answer.job.userID)),
                    ("order_id", .string(delivery.orderID)),
                ]
            }
        }
        // Each order once, as the last plan that touched it left it.
        var orderResults: [String: DeliveryPlan.OrderResult] = [:]
        for (_, plan) in settled { for result in plan.orderResults { orderResults[result.orderID] = result } }
        // Orders paid only with periods recorded granted: nothing of them is owed to the game.
        var grantedOrders: [String: Bool] = [:]
        for (answer, plan) in settled where answer.transactions.contains(where: { $0.subscription != nil }) {
            for delivery in plan.deliveries {
                let granted =
                    answer.transactions.first { $0.transactionID == delivery.transactionID }
                    .map(catalogue.recordsGranted) ?? false
                grantedOrders[delivery.orderID] = (grantedOrders[delivery.orderID] ?? true) && granted
            }
        }
        let jobs = settled.map { answer, plan -> [(String, JSONText.Value)] in
            var flags: [String] = []
            let listed = { (purchases: [DeliveryPlan.ForeignPurchase]) in
                purchases.map { "\($0.originalTransactionID) (user \($0.ownerUserID))" }.joined(separator: ", ")
            }
            let firstDelivered = plan.foreignPurchases.filter { !$0.byToken }
            let tokened = plan.foreignPurchases.filter(\.byToken)
            if !firstDelivered.isEmpty {
                flags.append("receipt carries purchases first delivered to another user: " + listed(firstDelivered))
            }
            if !tokened.isEmpty {
                flags.append(
                    "receipt carries purchases never delivered whose app account token is another user's order's: "
                        + listed(tokened)
                )
            }
            if let replay = plan.replay {
                flags.append(
                    "transaction \(replay.transactionID) is already delivered to order \(replay.orderID): "
                        + "a replayed input, it pays nothing here and costs the sender the store's trust"
                )
            }
            if !plan.refusedWithoutToken.isEmpty {
                let order = orders.appAccountToken(of: answer.job.order.orderID)
                flags.append(
                    plan.refusedWithoutToken.map { entry in
                        "transaction \(entry.transactionID) was looked up by its id and "
                            + (entry.appAccountToken == nil
                                ? "carries no appAccountToken" : "carries another appAccountToken")
                            + (order == nil
                                ? ", and the order has no app_account_token" : " than the order's app_account_token")
                    }.joined(separator: "; ")
                        + ": it pays no order (RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN=reject) and is recorded as an unclaimed payment"
                )
            }
            let flag = flags.isEmpty ? nil : flags.joined(separator: "; ")
            return [
                ("id", .int(answer.job.id)), ("environment", .string(answer.environment.rawValue)),
                ("flag", .optional(flag)),
            ]
        }
        let attempts = settled.map { answer, _ in answer.attempt.row(of: answer.job) }
        return SQLStatement(
            settleWrite,
            [
                JSONText.rows(deliveries), JSONText.rows(owners),
                JSONText.rows(
                    orderResults.values.sorted { $0.orderID < $1.orderID }.map { result in
                        [
                            ("order_id", .string(result.orderID)), ("delivered", .int(Int64(result.deliveredQuantity))),
                            ("outcome", .string(result.outcome.rawValue)),
                        ] + (grantedOrders[result.orderID] == true ? [("granted", .bool(true))] : [])
                    }
                ),
                JSONText.rows(jobs), owner, JSONText.rows(attempts),
            ]
        )
    }
}

import Foundation
import ReceiptdCore
import Testing

/// How verification ends a provisional grant: confirmed by a delivery, refuted by an unpaid outcome.
extension TrustRuleTests {
    @Test func aDeliveryConfirmsTheGrantWithNothingOwedTwiceWhetherOrNotTheGameGrantedIt() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o-granted", quantity: 2)
                try await Self.failingOrder(f, "o-waiting")
                #expect(try await Self.grant(roles.worker).count == 2)
                _ = try await roles.game.execute("SELECT iap.mark_granted('o-granted', ARRAY['provisional:o-granted'])")
                let grantedAt = try await f.value(
                    "SELECT granted_at::text FROM iap.provisional_grants WHERE order_id = 'o-granted'"
                )

                // The store answers: one settle pays both orders.
                try await Self.settle(roles.worker, ["o-granted", "o-waiting"])
                #expect(
                    try await f.value(
                        """
                        SELECT string_agg(order_id || ':' || state || ':' || (resolved_at IS NOT NULL), ',' ORDER BY order_id)
                        FROM iap.provisional_grants
                        """
                    ) == "o-granted:confirmed:true,o-waiting:confirmed:true"
                )
                // Granted before: the real row is granted (when the game granted it), the order finished.
                #expect(
                    try await f.value("SELECT granted_at::text FROM iap.deliveries WHERE order_id = 'o-granted'")
                        == grantedAt
                )
                // Not granted before: the real row is owed, and the provisional row is gone.
                let owed = try await roles.game.execute(
                    "SELECT transaction_id, provisional FROM iap.owed_deliveries('u1')"
                ).namedRows
                #expect(owed.map { $0["transaction_id"] } == ["paid-o-waiting"])
                #expect(owed.first?["provisional"] == "f")
                #expect(
                    try await f.value(
                        "SELECT string_agg(order_id || ':' || status, ',' ORDER BY order_id) FROM iap.orders"
                    ) == "o-granted:finished,o-waiting:verified"
                )
                #expect(try await roles.game.execute("SELECT iap.mark_granted('o-waiting') AS n").first?["n"] == "1")
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_deliveries('u1')").rows.isEmpty)
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_revocations('u1')").rows.isEmpty)
                // A confirmed grant costs nothing.
                #expect(try await Self.trust(roles.operations, "u1") == "true:0:-")
                #expect(
                    try await roles.operations.execute("SELECT unconfirmed_grants FROM iap.trust_of('u1')").rows.map {
                        $0[0]
                    } == ["0", "0"]
                )
            }
        }
    }

    @Test func anOperatorsAssignedPaymentConfirmsTheGrant() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o1")
                #expect(try await Self.grant(roles.worker) == ["o1:store_failing"])
                _ = try await roles.game.execute("SELECT iap.mark_granted('o1')")
                try await f.connection.execute(
                    """
                    INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment)
                    VALUES ('t-found', 'gems', 1, 'Production')
                    """
                )
                _ = try await roles.operations.execute("SELECT iap.assign_payment('t-found', 'o1')")
                #expect(try await f.value("SELECT state FROM iap.provisional_grants") == "confirmed")
                #expect(
                    try await f.value(
                        """
                        SELECT (d.granted_at IS NOT NULL) || ':' || o.status
                        FROM iap.deliveries d JOIN iap.orders o USING (order_id) WHERE d.transaction_id = 't-found'
                        """
                    ) == "true:finished"
                )
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_deliveries('u1')").rows.isEmpty)
            }
        }
    }

    @Test(arguments: ["invalid", "unmatched", "no_in_app", "failed"])
    func eachUnpaidOutcomeRefutesTheGrantAndHandsItBack(outcome: String) async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o-granted", quantity: 2)
                try await Self.failingOrder(f, "o-waiting")
                #expect(try await Self.grant(roles.worker).count == 2)
                _ = try await roles.game.execute("SELECT iap.mark_granted('o-granted')")

                let listener = try await Self.listen(f, "iap_revoked")
                try await Self.end(roles.worker, ["o-granted", "o-waiting"], outcome)
                let notes = try await Self.payloads(listener, on: "iap_revoked")
                await listener.close()
                #expect(
                    Set(notes) == [
                        ["order_id": "o-granted", "user_id": "u1", "transaction_id": "provisional:o-granted"],
                        ["order_id": "o-waiting", "user_id": "u1", "transaction_id": "provisional:o-waiting"],
                    ]
                )
                #expect(
                    try await f.value(
                        """
                        SELECT string_agg(order_id || ':' || state || ':' || refuted_by, ',' ORDER BY order_id)
                        FROM iap.provisional_grants WHERE resolved_at IS NOT NULL
                        """
                    ) == "o-granted:refuted:\(outcome),o-waiting:refuted:\(outcome)"
                )
                // A granted order stays finished (the game takes the goods back); the other waits unpaid again.
                #expect(
                    try await f.value(
                        "SELECT string_agg(order_id || ':' || status, ',' ORDER BY order_id) FROM iap.orders"
                    ) == "o-granted:finished,o-waiting:pending"
                )
                let owed = try await roles.game.execute(
                    """
                    SELECT transaction_id, order_id, product_id, quantity, revoked_at IS NOT NULL AS dated,
                           revocation_reason, granted, revocation_percentage, revoked_quantity
                    FROM iap.owed_revocations($1) ORDER BY transaction_id
                    """,
                    ["u1"]
                ).namedRows
                #expect(owed.map { $0["transaction_id"] } == ["provisional:o-granted", "provisional:o-waiting"])
                let (granted, waiting) = (try #require(owed.first), try #require(owed.last))
                #expect(
                    granted["order_id"] == "o-granted" && granted["product_id"] == "gems" && granted["quantity"] == "2"
                        && granted["dated"] == "t" && granted["revocation_reason"] == "provisional_refuted"
                        && granted["granted"] == "t" && granted["revocation_percentage"] == nil
                        && granted["revoked_quantity"] == "2"
                )
                #expect(waiting["granted"] == "f" && waiting["revoked_quantity"] == "1")
                // Nothing provisional is owed any more.
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_deliveries('u1')").rows.isEmpty)
                // The player lost the store's trust.
                let level = try await Self.trust(roles.operations, "u1")
                #expect(level == "false:0:provisional_refuted")
                // The next failing order of theirs is not granted.
                try await Self.failingOrder(f, "o-next")
                #expect(try await Self.grant(roles.worker) == [])

                // The game handles both; the second call marks nothing.
                let handle = "SELECT iap.mark_revocation_handled(ARRAY['provisional:o-granted', $1]) AS n"
                #expect(try await roles.game.execute(handle, ["provisional:o-waiting"]).first?["n"] == "2")
                #expect(try await roles.game.execute(handle, ["provisional:o-waiting"]).first?["n"] == "0")
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_revocations('u1')").rows.isEmpty)
                #expect(
                    try await f.value(
                        "SELECT count(*) FROM iap.provisional_grants WHERE revocation_handled_at IS NOT NULL"
                    ) == "2"
                )
            }
        }
    }

    /// A grant the game took and a payment of other units than it granted (a 3-unit transaction for an order of
    /// 1, or 1 unit of 2): the real rows are owed and the grant is handed back, so the player ends with what was paid.
    @Test func aConfirmationThatPaysOtherUnitsThanTheGrantExchangesItForTheRealRows() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o-more", user: "u1")
                try await Self.failingOrder(f, "o-fewer", user: "u2", quantity: 2)
                #expect(try await Self.grant(roles.worker).count == 2)
                _ = try await roles.game.execute("SELECT iap.mark_granted('o-more')")
                _ = try await roles.game.execute("SELECT iap.mark_granted('o-fewer')")
                // The store answers: a transaction of 3 units pays the order of 1 (every paid unit is delivered),
                // and one of 1 unit pays the order of 2 in part.
                for (order, user, units, outcome) in [("o-more", "u1", 3, "full"), ("o-fewer", "u2", 1, "partial")] {
                    _ = try await roles.worker.execute(
                        """
                        WITH ledger AS (
                            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity,
                                                        environment)
                            VALUES ('paid-' || $1, $1, $2, 'gems', $3, 'Production') RETURNING order_id
                        )
                        UPDATE iap.orders o SET delivered_quantity = $3, outcome = $4::iap.outcome, outcome_at = now(),
                                                status = 'verified'
                        FROM ledger l WHERE o.order_id = l.order_id
                        """,
                        [order, user, units, outcome]
                    )
                }
                #expect(
                    try await f.value("SELECT string_agg(DISTINCT state, ',') FROM iap.provisional_grants")
                        == "confirmed"
                )
                // The grants the game took are exchanged for the real rows: each real row is owed, and each grant
                // is handed back whole ('provisional_replaced'), so each player ends with the units paid (3, and 1).
                for (user, units) in [("u1", "3"), ("u2", "1")] {
                    let owed = try await roles.game.execute(
                        "SELECT coalesce(sum(quantity), 0) AS units, bool_or(provisional) AS provisional FROM iap.owed_deliveries($1)",
                        [user]
                    ).first
                    #expect(owed?["units"] == units && owed?["provisional"] == "f", "\(user)")
                    let handedBack = try await roles.game.execute("SELECT * FROM iap.owed_revocations($1)", [user])
                        .namedRows
                    #expect(handedBack.count == 1)
                    #expect(handedBack.first?["revocation_reason"] == "provisional_replaced")
                    #expect(handedBack.first?["granted"] == "t")
                    #expect(handedBack.first?["revoked_quantity"] == (user == "u1" ? "1" : "2"))
                    // No trust is lost: the store paid.
                    #expect(try await Self.trust(roles.operations, user) == "true:0:-")
                }
                #expect(
                    try await f.value(
                        "SELECT iap.mark_revocation_handled(ARRAY['provisional:o-more', 'provisional:o-fewer'])"
                    ) == "2"
                )
                #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "0")
            }
        }
    }

    @Test func aRetryThatFailsAgainIsNoRefutationUntilTheLastAttempt() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                let job = try await Self.failingOrder(f, "o1")
                #expect(try await Self.grant(roles.worker) == ["o1:store_failing"])
                // A retry the daemon records (the job stays pending) writes no outcome: the grant stands.
                _ = try await roles.worker.execute(
                    """
                    UPDATE iap.jobs SET attempts = attempts + 1, last_error = 'http: HTTP 503', run_at = now()
                    WHERE id = $1
                    """,
                    [job]
                )
                #expect(try await f.value("SELECT state FROM iap.provisional_grants") == "unconfirmed")
                #expect(try await Self.trust(roles.operations, "u1") == "true:0:-")
            }
        }
    }
}

import Foundation
import ReceiptdCore
import Testing

/// A provisional grant whose verification will not end it (issue #32): an operator cancels its order's job, or the
/// game closes its order. The grant is handed back (`provisional_cancelled`) and the player keeps their trust; a
/// grant left unconfirmed with no active job shows in `iap.stuck_jobs` (`provisional_unconfirmed`).
extension TrustRuleTests {
    /// The order's grant as `state:resolved`.
    static func grantState(_ f: Fixture, _ order: String) async throws -> String? {
        try await f.value(
            "SELECT state || ':' || (resolved_at IS NOT NULL) FROM iap.provisional_grants WHERE order_id = $1",
            [order]
        )
    }

    /// `iap.owed_revocations(user)` as the game reads it: `transaction_id:revocation_reason:granted:revoked_quantity`.
    static func owedBack(_ game: PostgresConnection, _ user: String = "u1") async throws -> [String] {
        try await game.execute(
            """
            SELECT transaction_id || ':' || revocation_reason || ':' || granted || ':' || revoked_quantity AS owed
            FROM iap.owed_revocations($1) ORDER BY transaction_id
            """,
            [user]
        ).rows.compactMap { $0.first ?? nil }
    }

    /// The `delivery.revoked` events written, as `order_id:reason:granted`.
    static func revokedEvents(_ f: Fixture) async throws -> [String] {
        try await f.connection.execute(
            """
            SELECT order_id || ':' || (payload->>'reason') || ':' || (payload->>'granted') AS event
            FROM iap.webhook_events WHERE type = 'delivery.revoked' ORDER BY seq
            """
        ).rows.compactMap { $0.first ?? nil }
    }

    @Test func anOperatorCancellingTheJobHandsTheGrantBackAndThePlayerKeepsTheirTrust() async throws {
        try await Fixture.with { f in
            try await f.configureWebhooks()
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o-granted", quantity: 2)
                try await Self.failingOrder(f, "o-waiting")
                #expect(try await Self.grant(roles.worker, limit: 2).count == 2)
                _ = try await roles.game.execute("SELECT iap.mark_granted('o-granted')")

                let listener = try await Self.listen(f, "iap_revoked")
                for order in ["o-granted", "o-waiting"] {
                    #expect(try await roles.operations.execute("SELECT iap.cancel_order($1)", [order]).rows == [["1"]])
                }
                let notes = try await Self.payloads(listener, on: "iap_revoked")
                await listener.close()
                #expect(
                    Set(notes) == [
                        ["order_id": "o-granted", "user_id": "u1", "transaction_id": "provisional:o-granted"],
                        ["order_id": "o-waiting", "user_id": "u1", "transaction_id": "provisional:o-waiting"],
                    ]
                )
                #expect(try await Self.grantState(f, "o-granted") == "cancelled:true")
                #expect(try await Self.grantState(f, "o-waiting") == "cancelled:true")
                // Handed back like a refuted grant: the game takes back what it granted, never grants the other.
                #expect(
                    try await Self.owedBack(roles.game) == [
                        "provisional:o-granted:provisional_cancelled:true:2",
                        "provisional:o-waiting:provisional_cancelled:false:1",
                    ]
                )
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_deliveries('u1')").rows.isEmpty)
                #expect(
                    try await Self.revokedEvents(f) == [
                        "o-granted:provisional_cancelled:true", "o-waiting:provisional_cancelled:false",
                    ]
                )
                // A granted order stays finished (the game takes the goods back); the other waits unpaid again.
                #expect(
                    try await f.value(
                        "SELECT string_agg(order_id || ':' || status, ',' ORDER BY order_id) FROM iap.orders"
                    ) == "o-granted:finished,o-waiting:pending"
                )
                // The player keeps their trust, and the grants no longer count against the limit: with a limit of
                // one, their next failing order is granted.
                #expect(try await Self.trust(roles.operations, "u1") == "true:0:-")
                #expect(
                    try await roles.operations.execute("SELECT unconfirmed_grants FROM iap.trust_of('u1')").rows.map {
                        $0[0]
                    } == ["0", "0"]
                )
                try await Self.failingOrder(f, "o-next")
                #expect(try await Self.grant(roles.worker, limit: 1) == ["o-next:store_failing"])
                #expect(
                    try await f.value("SELECT count(*) FROM iap.stuck_jobs WHERE reason = 'provisional_unconfirmed'")
                        == "0"
                )
                // The game handles both; the second call marks nothing.
                let handle = "SELECT iap.mark_revocation_handled(ARRAY['provisional:o-granted', $1]) AS n"
                #expect(try await roles.game.execute(handle, ["provisional:o-waiting"]).first?["n"] == "2")
                #expect(try await roles.game.execute(handle, ["provisional:o-waiting"]).first?["n"] == "0")
                #expect(try await Self.owedBack(roles.game) == [])
            }
        }
    }

    /// The game closes two provisionally granted orders. Each grant is handed back at once with the player's trust
    /// kept, and each job goes on: one finds the payment, which is owed as for any closed order (the grant is not
    /// confirmed by it); the other ends unmatched, which refutes nothing and costs no trust.
    @Test func theGameClosingAGrantedOrderHandsTheGrantBackAndItsJobStillDeliversWhatItFinds() async throws {
        try await Fixture.with { f in
            try await f.configureWebhooks()
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o-paid")
                try await Self.failingOrder(f, "o-unpaid")
                #expect(try await Self.grant(roles.worker, limit: 2).count == 2)
                _ = try await roles.game.execute("SELECT iap.mark_granted('o-paid')")
                for order in ["o-paid", "o-unpaid"] {
                    try await roles.game.execute("SELECT iap.close_order($1)", [order])
                }
                #expect(try await Self.grantState(f, "o-paid") == "cancelled:true")
                #expect(try await Self.grantState(f, "o-unpaid") == "cancelled:true")
                #expect(
                    try await Self.owedBack(roles.game) == [
                        "provisional:o-paid:provisional_cancelled:true:1",
                        "provisional:o-unpaid:provisional_cancelled:false:1",
                    ]
                )
                #expect(
                    try await Self.revokedEvents(f) == [
                        "o-paid:provisional_cancelled:true", "o-unpaid:provisional_cancelled:false",
                    ]
                )
                #expect(try await Self.trust(roles.operations, "u1") == "true:0:-")
                // The jobs go on.
                #expect(
                    try await f.value(
                        "SELECT string_agg(order_id || ':' || state, ',' ORDER BY order_id) FROM iap.jobs"
                    ) == "o-paid:pending,o-unpaid:pending"
                )

                // The store answers: o-paid was paid, o-unpaid matches nothing.
                try await Self.settle(roles.worker, ["o-paid"])
                try await Self.end(roles.worker, ["o-unpaid"], "unmatched")
                #expect(try await Self.grantState(f, "o-paid") == "cancelled:true")
                #expect(try await Self.grantState(f, "o-unpaid") == "cancelled:true")
                // The payment is owed for real, and the grant is still owed back: the player ends with what was paid.
                let owed = try await roles.game.execute(
                    "SELECT transaction_id || ':' || provisional AS owed FROM iap.owed_deliveries('u1')"
                ).rows.compactMap { $0.first ?? nil }
                #expect(owed == ["paid-o-paid:false"])
                #expect(try await Self.owedBack(roles.game).count == 2)
                #expect(try await Self.trust(roles.operations, "u1") == "true:0:-")
                #expect(
                    try await f.value("SELECT count(*) FROM iap.user_trust WHERE reason = 'provisional_refuted'") == "0"
                )
            }
        }
    }

    /// A grant left unconfirmed while no job of its order is active (its job cancelled by an older build) shows in
    /// `iap.stuck_jobs` until an operator's retry verifies the order again; a grant whose job is active does not.
    @Test func stuckJobsShowsAnUnconfirmedGrantWhoseOrderHasNoActiveJob() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                let stranded = try await Self.failingOrder(f, "o-stranded")
                try await Self.failingOrder(f, "o-verifying")
                #expect(try await Self.grant(roles.worker, limit: 2).count == 2)
                try await f.connection.execute(
                    "UPDATE iap.jobs SET state = 'cancelled', finished_at = now() WHERE id = $1",
                    [stranded]
                )
                let stuck = try await roles.operations.execute(
                    """
                    SELECT job_id, order_id, state, stuck_seconds >= 0 AS aged, last_error
                    FROM iap.stuck_jobs WHERE reason = 'provisional_unconfirmed'
                    """
                ).namedRows
                #expect(stuck.count == 1)
                let row = try #require(stuck.first)
                #expect(row["job_id"] == String(stranded) && row["order_id"] == "o-stranded")
                #expect(row["state"] == "cancelled" && row["aged"] == "t")
                #expect(row["last_error"]?.contains("unconfirmed") == true)
                // The order is verified again: the grant waits for that job, and is no longer stuck.
                _ = try await roles.operations.execute("SELECT iap.retry_order('o-stranded')")
                #expect(
                    try await roles.operations.execute(
                        "SELECT count(*) FROM iap.stuck_jobs WHERE reason = 'provisional_unconfirmed'"
                    ).rows == [["0"]]
                )
            }
        }
    }
}

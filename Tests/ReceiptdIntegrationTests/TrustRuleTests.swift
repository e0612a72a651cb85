import Foundation
import ReceiptdCore
import Testing

/// Seed 004's trust rules as the database applies them (sql/routines/08_trust.sql), without a daemon: the writes a
/// daemon makes are made as `receiptd_worker`, the game's calls as `receiptd_app`, an operator's as
/// `receiptd_operator`. This file: which orders `iap.grant_provisional` grants, and how the game sees a grant.
@Suite struct TrustRuleTests {
    /// A connection per role.
    struct Roles {
        /// The game server (`receiptd_app`).
        let game: PostgresConnection
        /// The daemon (`receiptd_worker`).
        let worker: PostgresConnection
        /// An operator (`receiptd_operator`).
        let operations: PostgresConnection
    }

    @Test func aTrustedPlayersFailingOrderIsGrantedAfterFailingForAndNotBefore() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                let job = try await Self.failingOrder(f, "o1", quantity: 3, secondsAgo: 10)
                // Failing, but not for long enough; another that failed only for reasons that are not the store's.
                try await Self.failingOrder(f, "o-malformed", error: "malformed: status 21002", secondsAgo: 600)
                try await Self.failingOrder(f, "o-credentials", error: "credentials: HTTP 401", secondsAgo: 600)
                try await Self.failingOrder(f, "o-untried", error: nil, secondsAgo: 600)
                #expect(try await Self.grant(roles.worker, failingFor: 60) == [])
                #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o1'") == "pending")

                let listener = try await Self.listen(f, "iap_verified")
                #expect(try await Self.grant(roles.worker, failingFor: 5) == ["o1:store_failing"])
                let notes = try await Self.payloads(listener, on: "iap_verified")
                await listener.close()
                #expect(notes == [["order_id": "o1", "user_id": "u1", "provisional": "true"]])

                let grant = try await f.row(
                    """
                    SELECT user_id, store, product_id, quantity, job_id, cause, state, granted_at, resolved_at
                    FROM iap.provisional_grants WHERE order_id = 'o1'
                    """
                )
                #expect(
                    grant["user_id"] == "u1" && grant["store"] == "apple" && grant["product_id"] == "gems"
                        && grant["quantity"] == "3" && grant["job_id"] == String(job)
                        && grant["cause"] == "store_failing"
                        && grant["state"] == "unconfirmed" && grant["granted_at"] == nil && grant["resolved_at"] == nil
                )
                // The order is verified for the game; the job keeps retrying.
                #expect(
                    try await f.value(
                        "SELECT o.status || ':' || j.state FROM iap.orders o JOIN iap.jobs j USING (order_id) WHERE order_id = 'o1'"
                    ) == "verified:pending"
                )
                // Granted once: the next round has nothing to grant.
                #expect(try await Self.grant(roles.worker, failingFor: 5) == [])
                #expect(try await f.value("SELECT count(*) FROM iap.provisional_grants") == "1")
            }
        }
    }

    @Test func aSignedTransactionAndAnUntrustedPlayersOrderAreNeverGranted() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                // A signed transaction verifies offline: it never waits for a store, whatever its job says.
                try await Self.failingOrder(f, "o-jws", input: "jws")
                // A Google player is untrusted by default; an App Store player an operator distrusted too.
                try await Self.failingOrder(f, "o-google", user: "g1", input: "google")
                try await Self.failingOrder(f, "o-distrusted", user: "u2")
                _ = try await roles.operations.execute("SELECT iap.set_trust('u2', 'apple', false, 'alice')")
                // A transaction id, a receipt, and a token of a Google player an operator trusted can be granted.
                try await Self.failingOrder(f, "o-id", user: "u3", input: "transaction")
                try await Self.failingOrder(f, "o-receipt", user: "u4")
                try await Self.failingOrder(f, "o-trusted-google", user: "g2", input: "google")
                _ = try await roles.operations.execute("SELECT iap.set_trust('g2', 'google', true, 'alice')")

                #expect(
                    try await Self.grant(roles.worker)
                        == ["o-id:store_failing", "o-receipt:store_failing", "o-trusted-google:store_failing"]
                )
                #expect(
                    try await f.value("SELECT store FROM iap.provisional_grants WHERE order_id = 'o-trusted-google'")
                        == "google"
                )
                for order in ["o-jws", "o-google", "o-distrusted"] {
                    #expect(
                        try await f.value("SELECT status::text FROM iap.orders WHERE order_id = $1", [order])
                            == "pending",
                        "\(order)"
                    )
                }
            }
        }
    }

    @Test func thePerUserLimitCountsUnconfirmedGrantsOldestFirst() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                for (order, age) in [("o1", 300), ("o2", 200), ("o3", 100)] {
                    try await Self.failingOrder(f, order, secondsAgo: age)
                }
                try await Self.failingOrder(f, "other", user: "u2")
                #expect(
                    try await Self.grant(roles.worker, limit: 2)
                        == ["o1:store_failing", "o2:store_failing", "other:store_failing"]
                )
                // At the limit the third waits as an untrusted player's order does.
                #expect(try await Self.grant(roles.worker, limit: 2) == [])
                #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o3'") == "pending")
                // Operators see the unconfirmed grants beside the level.
                #expect(
                    try await roles.operations.execute(
                        "SELECT unconfirmed_grants FROM iap.trust_of('u1') WHERE store = 'apple'"
                    ).first?["unconfirmed_grants"] == "2"
                )

                // One confirmed: room for one more.
                try await Self.settle(roles.worker, ["o1"])
                #expect(try await Self.grant(roles.worker, limit: 2) == ["o3:store_failing"])
                #expect(
                    try await f.value(
                        "SELECT count(*) FROM iap.provisional_grants WHERE user_id = 'u1' AND state = 'unconfirmed'"
                    ) == "2"
                )
            }
        }
    }

    @Test func aPausedAPIOfALiveDaemonGrantsAtOnceAndAStaleDaemonsDoesNot() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                // Just enqueued, never tried: only the breaker can make it wait for the store.
                try await Self.failingOrder(f, "o-receipt", error: nil, secondsAgo: 0)
                try await Self.failingOrder(f, "o-id", user: "u2", input: "transaction", error: nil, secondsAgo: 0)
                _ = try await roles.worker.execute(
                    """
                    INSERT INTO iap.daemons (daemon, heartbeat_at, paused_apis)
                    VALUES ('gone:1:x', now() - interval '5 minutes', ARRAY['verify_receipt', 'server_api'])
                    """
                )
                #expect(try await Self.grant(roles.worker, failingFor: 3_600) == [])

                _ = try await roles.worker.execute(
                    """
                    INSERT INTO iap.daemons (daemon, heartbeat_at, paused_apis)
                    VALUES ('alive:1:x', now(), ARRAY['verify_receipt'])
                    """
                )
                // Receipts go to verifyReceipt, whose breaker is open; the Server API's is not.
                #expect(try await Self.grant(roles.worker, failingFor: 3_600) == ["o-receipt:breaker_open"])
                #expect(try await f.value("SELECT cause FROM iap.provisional_grants") == "breaker_open")
                // Under RECEIPTD_RECEIPT_VERIFIER=server_api a receipt needs the Server API, which is not paused.
                try await Self.failingOrder(f, "o-receipt-2", user: "u3", error: nil, secondsAgo: 0)
                #expect(
                    try await Self.grant(roles.worker, failingFor: 3_600, receiptAPI: StoreAPI.serverAPI.rawValue) == []
                )
            }
        }
    }

    @Test func theGameIsOwedTheProvisionalRowAndMarksItGrantedEitherWay() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o1", quantity: 2)
                try await Self.failingOrder(f, "o2")
                try await Self.failingOrder(f, "o-other", user: "u2")
                #expect(try await Self.grant(roles.worker).count == 3)

                let owed = try await roles.game.execute(
                    """
                    SELECT transaction_id, order_id, product_id, quantity, purchase_date, delivered_at IS NOT NULL AS dated,
                           provisional
                    FROM iap.owed_deliveries($1)
                    """,
                    ["u1"]
                ).namedRows
                #expect(owed.map { $0["transaction_id"] } == ["provisional:o1", "provisional:o2"])
                let first = try #require(owed.first)
                #expect(
                    first["order_id"] == "o1" && first["product_id"] == "gems" && first["quantity"] == "2"
                        && first["purchase_date"] == nil && first["dated"] == "t" && first["provisional"] == "t"
                )

                // mark_granted(order_id): the provisional row counts as one; the order is finished.
                #expect(try await roles.game.execute("SELECT iap.mark_granted('o1') AS n").first?["n"] == "1")
                #expect(try await roles.game.execute("SELECT iap.mark_granted('o1') AS n").first?["n"] == "0")
                // mark_granted(order_id, ids) marks it only under its own id.
                #expect(
                    try await roles.game.execute("SELECT iap.mark_granted('o2', ARRAY['t-other']) AS n").first?["n"]
                        == "0"
                )
                #expect(try await f.value("SELECT status::text FROM iap.orders WHERE order_id = 'o2'") == "verified")
                #expect(
                    try await roles.game.execute("SELECT iap.mark_granted('o2', ARRAY['provisional:o2']) AS n").first?[
                        "n"
                    ] == "1"
                )
                #expect(
                    try await f.value(
                        "SELECT string_agg(order_id || ':' || status, ',' ORDER BY order_id) FROM iap.orders WHERE user_id = 'u1'"
                    ) == "o1:finished,o2:finished"
                )
                #expect(
                    try await f.value(
                        "SELECT count(*) FROM iap.provisional_grants WHERE granted_at IS NOT NULL AND state = 'unconfirmed'"
                    ) == "2"
                )
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_deliveries('u1')").rows.isEmpty)
                #expect(try await roles.game.execute("SELECT * FROM iap.owed_deliveries('u2')").rows.count == 1)
                // The game reads grants only through its functions.
                await #expect(throws: PostgresError.self) {
                    try await roles.game.execute("SELECT count(*) FROM iap.provisional_grants")
                }
            }
        }
    }
}

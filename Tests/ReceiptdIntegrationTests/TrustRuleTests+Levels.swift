import Foundation
import ReceiptdCore
import Testing

/// How a player's level changes: lost on an invalid order or a foreign transaction, regained after a streak of paid
/// orders, set by an operator; and the policy each daemon publishes.
extension TrustRuleTests {
    @Test func anInvalidOrderCostsTheTrustOfItsStoreAtOnce() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                try await Self.failingOrder(f, "o1", error: nil)
                try await Self.failingOrder(f, "o-google", user: "u1", input: "google", error: nil)
                _ = try await roles.operations.execute("SELECT iap.set_trust('u1', 'google', true, 'alice')")
                try await Self.end(roles.worker, ["o1"], "invalid")
                #expect(try await Self.trust(roles.operations, "u1", "apple") == "false:0:invalid")
                #expect(
                    try await f.value("SELECT order_id FROM iap.user_trust WHERE user_id = 'u1' AND store = 'apple'")
                        == "o1"
                )
                // The other store's level is its own.
                #expect(try await Self.trust(roles.operations, "u1", "google") == "true:0:operator: alice")
                // An order that merely could not be verified costs nothing.
                try await Self.failingOrder(f, "o2", user: "u2", error: nil)
                try await Self.end(roles.worker, ["o2"], "failed")
                #expect(try await Self.trust(roles.operations, "u2") == "true:0:-")
                #expect(try await f.value("SELECT count(*) FROM iap.user_trust WHERE user_id = 'u2'") == "0")
            }
        }
    }

    @Test func aForeignTransactionCostsTheSendersTrustInTheStoreOfItsJob() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                let apple = try await Self.failingOrder(f, "o1", user: "thief", error: nil)
                let google = try await Self.failingOrder(f, "o2", user: "thief", input: "google", error: nil)
                _ = try await roles.operations.execute("SELECT iap.set_trust('thief', 'google', true, 'alice')")
                _ = try await roles.worker.execute(
                    """
                    INSERT INTO iap.foreign_transactions (job_id, order_id, user_id, original_transaction_id, owner_user_id)
                    VALUES ($1, 'o1', 'thief', 't-owned', 'owner')
                    """,
                    [apple]
                )
                #expect(try await Self.trust(roles.operations, "thief", "apple") == "false:0:foreign_transaction")
                #expect(try await Self.trust(roles.operations, "thief", "google") == "true:0:operator: alice")
                _ = try await roles.worker.execute(
                    """
                    INSERT INTO iap.foreign_transactions (job_id, order_id, user_id, original_transaction_id, owner_user_id)
                    VALUES ($1, 'o2', 'thief', 'GPA.owned', 'owner')
                    """,
                    [google]
                )
                #expect(try await Self.trust(roles.operations, "thief", "google") == "false:0:foreign_transaction")
                #expect(
                    try await f.value(
                        "SELECT string_agg(store || ':' || order_id, ',' ORDER BY store) FROM iap.user_trust"
                    ) == "apple:o1,google:o2"
                )
                // The owner loses nothing.
                #expect(try await Self.trust(roles.operations, "owner") == "true:0:-")
            }
        }
    }

    @Test func aGooglePlayerStartsUntrustedAndIsRestoredAfterAStreakThatUnmatchedBreaksAndFailedDoesNot() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:0:-")
                #expect(try await f.value("SELECT count(*) FROM iap.user_trust") == "0")
                for order in ["p1", "p2", "p3", "p4", "p5", "p6", "failed", "unmatched", "no-in-app"] {
                    try await Self.failingOrder(f, order, user: "g1", input: "google", error: nil)
                }
                try await Self.settle(roles.worker, ["p1"], store: "google")
                // The first paid order creates the row at the initial level.
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:1:initial")
                #expect(try await f.value("SELECT order_id FROM iap.user_trust") == "p1")
                try await Self.end(roles.worker, ["failed"], "failed")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:1:initial")
                try await Self.settle(roles.worker, ["p2"], store: "google")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:2:initial")
                try await Self.end(roles.worker, ["unmatched"], "unmatched")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:0:initial")
                try await Self.settle(roles.worker, ["p3"], store: "google")
                try await Self.settle(roles.worker, ["p4"], store: "google")
                try await Self.end(roles.worker, ["no-in-app"], "no_in_app")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:0:initial")
                try await Self.settle(roles.worker, ["p5"], store: "google")
                try await Self.settle(roles.worker, ["p6"], store: "google")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:2:initial")
                // The apple level was never touched.
                #expect(try await Self.trust(roles.operations, "g1", "apple") == "true:0:-")
            }
        }
    }

    @Test func restoreAfterComesFromTheTrustPolicyAndAPartialDeliveryCounts() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                _ = try await roles.worker.execute("SELECT iap.set_trust_policy(true, false, 2)")
                for order in ["p1", "p2", "p3"] {
                    try await Self.failingOrder(f, order, user: "g1", input: "google", error: nil)
                }
                try await Self.settle(roles.worker, ["p1"], store: "google")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "false:1:initial")
                try await Self.settle(roles.worker, ["p2"], store: "google", outcome: "partial")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "true:0:restored")
                #expect(
                    try await f.value("SELECT order_id FROM iap.user_trust WHERE user_id = 'g1' AND store = 'google'")
                        == "p2"
                )
                // A trusted player's paid orders change nothing.
                try await Self.settle(roles.worker, ["p3"], store: "google")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "true:0:restored")

                // An App Store player who lost trust regains it the same way.
                try await Self.failingOrder(f, "a1", user: "u1", error: nil)
                try await Self.failingOrder(f, "a2", user: "u1", error: nil)
                try await Self.failingOrder(f, "a3", user: "u1", error: nil)
                try await Self.end(roles.worker, ["a1"], "invalid")
                try await Self.settle(roles.worker, ["a2"])
                #expect(try await Self.trust(roles.operations, "u1") == "false:1:invalid")
                try await Self.settle(roles.worker, ["a3"])
                #expect(try await Self.trust(roles.operations, "u1") == "true:0:restored")
            }
        }
    }

    @Test func oneStatementEndingSeveralOrdersOfOnePlayerCountsEach() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                for order in ["p1", "p2", "p3", "p4", "q1", "q2"] {
                    let user = order.hasPrefix("p") ? "g1" : "g2"
                    try await Self.failingOrder(f, order, user: user, input: "google", error: nil)
                }
                // One settle pays four orders of g1 (three restore trust) and two of g2.
                try await Self.settle(roles.worker, ["p1", "p2", "p3", "p4", "q1", "q2"], store: "google")
                #expect(try await Self.trust(roles.operations, "g1", "google") == "true:0:restored")
                #expect(try await Self.trust(roles.operations, "g2", "google") == "false:2:initial")
            }
        }
    }

    @Test func operatorsReadBothLevelsAndSetOneRecordingWhoDidIt() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                let levels =
                    "SELECT store, trusted, streak, changed_at, reason, order_id, recorded, unconfirmed_grants FROM iap.trust_of($1)"
                let fresh = try await roles.operations.execute(levels, ["nobody"]).namedRows
                #expect(fresh.map { $0["store"] } == ["apple", "google"])
                #expect(fresh.map { $0["trusted"] } == ["t", "f"])
                #expect(
                    fresh.allSatisfy {
                        $0["streak"] == "0" && $0["changed_at"] == nil && $0["reason"] == nil && $0["order_id"] == nil
                            && $0["recorded"] == "f" && $0["unconfirmed_grants"] == "0"
                    }
                )

                _ = try await roles.operations.execute("SELECT iap.set_trust('u1', 'google', true, 'alice')")
                _ = try await roles.operations.execute(
                    "SELECT iap.set_trust(user_id => 'u1', store => 'apple', trusted => false, actor => '')"
                )
                let set = try await roles.operations.execute(levels, ["u1"]).namedRows
                #expect(set.map { $0["trusted"] } == ["f", "t"])
                #expect(set.allSatisfy { $0["recorded"] == "t" && $0["changed_at"] != nil && $0["order_id"] == nil })
                // No actor named: the operator's login is recorded.
                #expect(set.first?["reason"] == "operator: \(f.database.name)_operator")
                #expect(set.last?["reason"] == "operator: alice")

                // Setting untrusted starts the streak again; setting trusted clears it.
                try await Self.failingOrder(f, "p1", user: "u1", error: nil)
                try await Self.settle(roles.worker, ["p1"])
                #expect(try await Self.trust(roles.operations, "u1") == "false:1:operator: \(f.database.name)_operator")
                _ = try await roles.operations.execute("SELECT iap.set_trust('u1', 'apple', false, 'bob')")
                #expect(try await Self.trust(roles.operations, "u1") == "false:0:operator: bob")

                for (call, state) in [
                    ("SELECT iap.set_trust('u1', 'amazon', true, 'alice')", "22023"),
                    ("SELECT iap.set_trust('u1', NULL, true, 'alice')", "22023"),
                    ("SELECT iap.set_trust('u1', 'apple', NULL, 'alice')", "22023"),
                    ("SELECT iap.set_trust('', 'apple', true, 'alice')", "22023"),
                ] {
                    let refused = await #expect(throws: PostgresError.self, "\(call)") {
                        try await roles.operations.execute(call)
                    }
                    #expect(refused?.sqlState == state, "\(call)")
                }
                // Only operators set levels; the game and the daemon cannot.
                for connection in [roles.game, roles.worker] {
                    let refused = await #expect(throws: PostgresError.self) {
                        try await connection.execute("SELECT iap.set_trust('u1', 'apple', true, 'me')")
                    }
                    #expect(refused?.sqlState == "42501")
                }
                let gameRead = await #expect(throws: PostgresError.self) {
                    try await roles.game.execute("SELECT * FROM iap.trust_of('u1')")
                }
                #expect(gameRead?.sqlState == "42501")
            }
        }
    }

    @Test func theDaemonPublishesThePolicyThatInitialLevelsAndRestoringFollow() async throws {
        try await Fixture.with { f in
            try await Self.withRoles(f) { roles in
                let policy =
                    "SELECT initial_apple || ':' || initial_google || ':' || restore_after FROM iap.trust_policy"
                #expect(try await f.value(policy) == "true:false:3")
                let before = try await f.value("SELECT updated_at::text FROM iap.trust_policy")
                _ = try await roles.worker.execute("SELECT iap.set_trust_policy(false, true, 5)")
                #expect(try await f.value(policy) == "false:true:5")
                #expect(try await Self.trust(roles.operations, "nobody", "apple") == "false:0:-")
                #expect(try await Self.trust(roles.operations, "nobody", "google") == "true:0:-")
                let after = try await f.value("SELECT updated_at::text FROM iap.trust_policy")
                #expect(after != before)
                // The same policy again is no change.
                _ = try await roles.worker.execute("SELECT iap.set_trust_policy(false, true, 5)")
                #expect(try await f.value("SELECT updated_at::text FROM iap.trust_policy") == after)
                #expect(try await f.value("SELECT count(*) FROM iap.trust_policy") == "1")

                // An App Store player now starts untrusted: not granted, and counted from their first paid order.
                try await Self.failingOrder(f, "o1")
                #expect(try await Self.grant(roles.worker) == [])
                try await Self.settle(roles.worker, ["o1"])
                #expect(try await Self.trust(roles.operations, "u1") == "false:1:initial")
                // A restore_after below one is refused by the table.
                await #expect(throws: PostgresError.self) {
                    try await roles.worker.execute("SELECT iap.set_trust_policy(true, false, 0)")
                }
                // Operators read the policy; the game does not.
                #expect(try await roles.operations.execute("SELECT count(*) FROM iap.trust_policy").first != nil)
                await #expect(throws: PostgresError.self) {
                    try await roles.game.execute("SELECT iap.set_trust_policy(true, false, 3)")
                }
            }
        }
    }
}

import Foundation
import ReceiptdCore
import ReceiptdTools
import Testing

/// The game's calls at login and per purchase read the large tables by index (issue #47, item 10): on a database
/// of 100,000 ledger rows, the plans of every statement each call runs, its body's included, hold no sequential
/// scan of them under the server's default planner settings.
@Suite struct LoginPlanTests {
    /// The tables that grow with the game; a small one (`trust_policy`, one row) may be read whole.
    private static let largeTables: Set<String> = [
        "deliveries", "jobs", "orders", "subscriptions", "provisional_grants", "user_trust",
    ]

    /// Each call as the game makes it, on the seeded players and orders: u44 owns non-consumables and an active
    /// subscription, u50's order o50 is delivered and not granted, t1 is refunded and not handled.
    private static let calls: [(name: String, statements: [String])] = [
        ("entitlements", ["SELECT * FROM iap.entitlements('u44')"]),
        ("owed_deliveries", ["SELECT * FROM iap.owed_deliveries('u50')"]),
        ("owed_revocations", ["SELECT * FROM iap.owed_revocations('u1')"]),
        ("mark_granted", ["SELECT iap.mark_granted('o50')"]),
        ("mark_granted with ids", ["SELECT iap.mark_granted('o100', ARRAY['t100'])"]),
        ("mark_revocation_handled", ["SELECT iap.mark_revocation_handled(ARRAY['t1'])"]),
        (
            "create_order",
            ["SELECT iap.create_order('new-1', 'u44', 'p1')", "SELECT iap.create_order('o44', 'u44', 'p4')"]
        ),
        (
            "enqueue_receipt",
            [
                "SELECT iap.enqueue_receipt('new-2', 'u44', 'p1', 'QUJD')",
                // Another input for the same order replaces the job waiting; one for a paid order is verified anew.
                "SELECT iap.enqueue_receipt('new-2', 'u44', 'p1', 'QUJF')",
                "SELECT iap.enqueue_receipt('o44', 'u44', 'p4', 'QUJD')",
            ]
        ),
        ("enqueue_transaction", ["SELECT iap.enqueue_transaction('new-3', 'u44', 'p1', '2000000001')"]),
        ("enqueue_google_purchase", ["SELECT iap.enqueue_google_purchase('new-4', 'u44', 'p1', 'tok-4.abc')"]),
        ("close_order", ["SELECT iap.create_order('new-5', 'u44', 'p1')", "SELECT iap.close_order('new-5')"]),
    ]

    @Test func everyCallAtLoginAndPerPurchaseReadsTheLargeTablesByIndex() async throws {
        try await Fixture.with { f in
            try await f.seedLargeLedger()
            for generic in [false, true] {
                for call in Self.calls {
                    let plans = try f.plans(of: call.statements, generic: generic)
                    // The call's own plan and at least one of its body's: auto_explain saw inside the function.
                    #expect(plans.components(separatedBy: "plan:").count > 2, "\(call.name): \(plans)")
                    let whole = Fixture.sequentiallyScanned(plans).intersection(Self.largeTables)
                    #expect(whole.isEmpty, "\(call.name) (generic: \(generic)) scans \(whole): \(plans)")
                    if call.name == "entitlements" {
                        #expect(plans.contains("deliveries_owned"), "\(plans)")
                    }
                }
            }
        }
    }

    /// At a subscription title's size (issue #48, item 2; `SubscriptionSeed`, 20,000 subscriptions of 10,000
    /// players, 86,000 ledger rows, analyzed): the body of `iap.entitlements` reads only the player's rows, its
    /// subscriptions through `subscriptions_user` and its non-consumables through `deliveries_owned`, with no
    /// sequential scan at all, under the default planner settings and with a generic plan. player-0 has both.
    @Test func theLoginReadOfASeededTitleReadsOnlyThePlayersRows() async throws {
        try await Fixture.with { f in
            _ = try await SubscriptionSeed.write(subscriptions: 20_000, connectionString: f.database.connectionString)
            let owned = try await f.connection.execute(
                """
                SELECT (SELECT count(*) FROM iap.subscriptions WHERE user_id = 'player-0') AS subscriptions,
                       (SELECT count(*) FROM iap.deliveries WHERE user_id = 'player-0' AND product_kind = 'non_consumable')
                           AS non_consumables
                """
            ).first
            #expect(try owned?.int("subscriptions") == 1)
            #expect(try owned?.int("non_consumables") == 1)
            for generic in [false, true] {
                let plans = try f.plans(of: ["SELECT * FROM iap.entitlements('player-0')"], generic: generic)
                #expect(plans.components(separatedBy: "plan:").count > 2, "\(plans)")
                #expect(!plans.contains("Seq Scan"), "generic: \(generic): \(plans)")
                #expect(plans.contains("subscriptions_user") && plans.contains("deliveries_owned"), "\(plans)")
            }
        }
    }

    /// The login reads plan their bodies once per connection and keep the plans (issue #48): as SQL functions, which
    /// SECURITY DEFINER keeps from being inlined, they planned the body again on every call, which cost more than
    /// reading the player's rows. A kept plan shows among the connection's memory contexts after a call, named by
    /// its text, which alone qualifies the parameter with the function's name.
    @Test(arguments: ["entitlements", "owed_deliveries", "owed_revocations"])
    func theLoginReadKeepsItsBodysPlanOnTheConnection(function: String) async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT * FROM iap.\(function)('u1')")
            // The body's text is a parameter, so this statement's own kept plan does not match it.
            let kept = try await f.connection.execute(
                """
                SELECT count(*) AS n FROM pg_backend_memory_contexts
                WHERE name = 'CachedPlanSource' AND strpos(ident, $1) > 0
                """,
                ["\(function).user_id"]
            ).first?.int("n")
            #expect(kept == 1)
        }
    }
}

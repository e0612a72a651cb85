import Foundation
import ReceiptdCore
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

    /// The plan of every statement `statements` run, nested ones included (auto_explain: a SECURITY DEFINER
    /// function's body is never inlined, so EXPLAIN of the call shows nothing of it), in a transaction rolled back.
    /// `generic` plans every statement without its parameters' values, as a long-lived connection of the game may
    /// come to run PL/pgSQL's statements; otherwise the server's defaults apply.
    private func plans(of statements: [String], in f: Fixture, generic: Bool) throws -> String {
        let settings = [
            "LOAD 'auto_explain'", "SET auto_explain.log_min_duration = 0",
            "SET auto_explain.log_nested_statements = on", "SET auto_explain.log_level = notice",
            "SET client_min_messages = notice",
        ]
        return try f.database.cluster.notices(
            database: f.database.name,
            commands: settings + (generic ? ["SET plan_cache_mode = force_generic_plan"] : []) + ["BEGIN"]
                + statements + ["ROLLBACK"]
        )
    }

    /// The tables `plans` read with a sequential scan.
    private func scanned(_ plans: String) -> Set<String> {
        Set(plans.matches(of: /Seq Scan on (\w+)/).map { String($0.output.1) })
    }

    @Test func everyCallAtLoginAndPerPurchaseReadsTheLargeTablesByIndex() async throws {
        try await Fixture.with { f in
            try await f.seedLargeLedger()
            for generic in [false, true] {
                for call in Self.calls {
                    let plans = try plans(of: call.statements, in: f, generic: generic)
                    // The call's own plan and at least one of its body's: auto_explain saw inside the function.
                    #expect(plans.components(separatedBy: "plan:").count > 2, "\(call.name): \(plans)")
                    let whole = scanned(plans).intersection(Self.largeTables)
                    #expect(whole.isEmpty, "\(call.name) (generic: \(generic)) scans \(whole): \(plans)")
                    if call.name == "entitlements" {
                        #expect(plans.contains("deliveries_owned"), "\(plans)")
                    }
                }
            }
        }
    }
}

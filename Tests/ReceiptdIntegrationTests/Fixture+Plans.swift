import Foundation
import ReceiptdCore

extension Fixture {
    /// The plan of every statement `statements` run, nested ones included (auto_explain: a SECURITY DEFINER
    /// function's body is never inlined, so EXPLAIN of the call shows nothing of it), in a transaction rolled back.
    /// `generic` plans every statement without its parameters' values, as a long-lived connection of the game may
    /// come to run PL/pgSQL's statements, or a daemon its prepared ones; otherwise the server's defaults apply.
    func plans(of statements: [String], generic: Bool) throws -> String {
        let settings = [
            "LOAD 'auto_explain'", "SET auto_explain.log_min_duration = 0",
            "SET auto_explain.log_nested_statements = on", "SET auto_explain.log_level = notice",
            "SET client_min_messages = notice",
        ]
        return try database.cluster.notices(
            database: database.name,
            commands: settings + (generic ? ["SET plan_cache_mode = force_generic_plan"] : []) + ["BEGIN"]
                + statements + ["ROLLBACK"]
        )
    }

    /// The tables `plans` read with a sequential scan.
    static func sequentiallyScanned(_ plans: String) -> Set<String> {
        Set(plans.matches(of: /Seq Scan on (\w+)/).map { String($0.output.1) })
    }
}

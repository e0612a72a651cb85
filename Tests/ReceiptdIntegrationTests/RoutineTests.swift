import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// The functions of `sql/routines/` as a contract: each is executable by exactly its roles (never by `PUBLIC`),
/// states how it runs in its own definition, and the game server may call it by position or by parameter name.
@Suite struct RoutineTests {
    /// Every function of schema `iap` (name and argument types), and the roles that may execute it: the README's
    /// "Roles" section. `enqueue_job`, `check_identifier`, `enqueue_notified` and `cancel_provisional_grant` are for
    /// the functions that run as their owner; `job_store`, `trust_level`, `prorated_units` and `units_share` are
    /// inlined into the daemon's queries.
    static let grants: [String: [String]] = [
        "check_identifier(text, text, text)": [],
        "enqueue_job(text, text, text, text, text, text, integer, uuid, text)": [],
        "enqueue_receipt(text, text, text, text, integer)": ["receiptd_app"],
        "enqueue_transaction(text, text, text, text, integer, uuid)": ["receiptd_app"],
        "enqueue_google_purchase(text, text, text, text, integer, text)": ["receiptd_app"],
        "create_order(text, text, text, integer, uuid, text)": ["receiptd_app"],
        "owed_revocations(text)": ["receiptd_app"],
        "mark_revocation_handled(text[])": ["receiptd_app"],
        "set_consumption_consent(text, boolean)": ["receiptd_app"],
        "define_product(text, text, text, boolean)": ["receiptd_app"],
        "entitlements(text)": ["receiptd_app"],
        "subscription_changed()": [],
        "answer_refund_request(text, integer, text)": ["receiptd_app"],
        "report_consumption(text, integer)": ["receiptd_app"],
        "answer_refund(text, text, integer, text, text)": [],
        "operator_answer_refund(text, integer, text)": ["receiptd_operator"],
        "set_refund_abuse_limit(integer)": ["receiptd_worker"],
        "distrust_refunder()": [],
        "refund_requested()": [],
        "refunds_in_90_days(text)": ["receiptd_worker"],
        "notify_revoked()": [],
        "enqueue_notified_charge(text, text)": ["receiptd_worker"],
        "enqueue_subscription_period(text, text, text, text)": ["receiptd_worker"],
        "open_renewal_orders(jsonb)": ["receiptd_worker"],
        "subscription_read_due(text, timestamp with time zone)": ["receiptd_worker"],
        "webhook_subscription_changed()": [],
        "enqueue_notified_google_purchase(text, text)": ["receiptd_worker"],
        "enqueue_notified(text, text, text, text)": [],
        "revoke_refunded_units(text[])": ["receiptd_worker"],
        "rescind_consent(text, text, timestamp with time zone, bigint)": ["receiptd_worker"],
        "apply_partial_refunds()": [],
        "revoke_google_lines()": [],
        "revoke_all_units()": [],
        "owed_deliveries(text)": ["receiptd_app"],
        "mark_granted(text)": ["receiptd_app"],
        "mark_granted(text, text[])": ["receiptd_app"],
        "close_order(text)": ["receiptd_app"],
        "retry_order(text)": ["receiptd_operator"],
        "cancel_order(text)": ["receiptd_operator"],
        "assign_payment(text, text)": ["receiptd_operator"],
        "purge_finished(interval, integer)": ["receiptd_worker"],
        "lose_trust(text, text, text, text)": ["receiptd_worker"],
        "job_store(text)": ["receiptd_worker"],
        "prorated_units(integer, integer)": ["receiptd_worker"],
        "units_share(integer, integer)": ["receiptd_worker"],
        "trust_level(boolean, text, boolean, boolean)": ["receiptd_worker"],
        "cancel_provisional_grant(text)": [],
        "apply_trust_rules()": [],
        "distrust_foreign_sender()": [],
        "set_trust_policy(boolean, boolean, integer)": ["receiptd_worker"],
        "trust_of(text)": ["receiptd_operator"],
        "set_trust(text, text, boolean, text)": ["receiptd_operator"],
        "grant_provisional(interval, integer, text, text[])": ["receiptd_worker"],
        "webhook_deliveries_added()": [],
        "webhook_delivery_revocation()": [],
        "webhook_provisional_grant()": [],
        "webhook_payment_unclaimed()": [],
        "webhook_order_failed()": [],
        "set_webhook_endpoint(boolean)": ["receiptd_worker"],
        "disable_webhooks(text)": ["receiptd_worker"],
        "enable_webhooks(text)": ["receiptd_operator"],
        "replay_webhook_events(text[])": ["receiptd_operator"],
        "record_operator_action(text, text, text, text)": ["receiptd_operator"],
    ]

    /// The helpers the planner inlines into the queries calling them (sql/routines/08_trust.sql).
    static let inlined: Set<String> = [
        "job_store(text)", "trust_level(boolean, text, boolean, boolean)", "prorated_units(integer, integer)",
        "units_share(integer, integer)",
    ]

    /// Each function of schema `iap`, as `name(argument types)`: two rows of one name are overloads.
    static func functions(_ connection: PostgresConnection) async throws -> [String] {
        try await connection.execute(
            """
            SELECT p.proname || '(' || oidvectortypes(p.proargtypes) || ')' AS function FROM pg_proc p
            WHERE p.pronamespace = 'iap'::regnamespace ORDER BY 1
            """
        ).namedRows.map { try $0.string("function") }
    }

    @Test func everyFunctionIsExecutableByItsRolesOnlyAndNeverByPublic() async throws {
        try await Fixture.with { f in
            // A NULL ACL is PostgreSQL's default, which lets PUBLIC execute: acldefault spells it out.
            let rows = try await f.connection.execute(
                """
                SELECT p.proname || '(' || oidvectortypes(p.proargtypes) || ')' AS function,
                       coalesce(string_agg(CASE WHEN a.grantee = 0 THEN 'PUBLIC' ELSE r.rolname END, ',')
                                    FILTER (WHERE a.grantee <> p.proowner), '') AS grantees
                FROM pg_proc p
                CROSS JOIN LATERAL aclexplode(coalesce(p.proacl, acldefault('f', p.proowner))) a
                LEFT JOIN pg_roles r ON r.oid = a.grantee
                WHERE p.pronamespace = 'iap'::regnamespace AND a.privilege_type = 'EXECUTE'
                GROUP BY p.oid, p.proname, p.proargtypes
                """
            ).namedRows
            var granted: [String: [String]] = [:]
            for row in rows {
                let grantees = try row.string("grantees")
                granted[try row.string("function")] =
                    grantees.isEmpty ? [] : grantees.split(separator: ",").map(String.init)
            }
            #expect(try await Self.functions(f.connection).sorted() == Self.grants.keys.sorted())
            for (function, roles) in Self.grants {
                #expect(granted[function, default: []].sorted() == roles.sorted(), "\(function)")
            }
        }
    }

    @Test func everyFunctionStatesHowItRunsInItsOwnDefinition() async throws {
        try await Fixture.with { f in
            let rows = try await f.connection.execute(
                """
                SELECT p.proname || '(' || oidvectortypes(p.proargtypes) || ')' AS function, p.prosecdef,
                       coalesce(array_to_string(p.proconfig, ';'), '') AS config, p.provolatile::text AS volatility,
                       l.lanname AS language
                FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.pronamespace = 'iap'::regnamespace
                """
            ).namedRows
            #expect(rows.count == Self.grants.count)
            for row in rows {
                let function = try row.string("function")
                // The rules inlined into their callers: IMMUTABLE SQL without settings (a SET, or SECURITY
                // DEFINER, would keep the planner from inlining them), reading no table, so the caller's fixed
                // search_path is the one they run with.
                if Self.inlined.contains(function) {
                    #expect(try row.bool("prosecdef") == false, "\(function)")
                    #expect(try row.string("config").isEmpty, "\(function)")
                    #expect(try row.string("volatility") == "i" && (try row.string("language")) == "sql", "\(function)")
                    continue
                }
                // The functions a role calls run as their owner; the two helpers run as the function calling them.
                let runsAsOwner = !(Self.grants[function] ?? []).isEmpty
                #expect(try row.bool("prosecdef") == runsAsOwner, "\(function)")
                #expect(try row.string("config").hasPrefix("search_path=pg_catalog, "), "\(function)")
            }
        }
    }

    /// The rules written once stay free on the settle's path: in the daemon's own queries the planner replaces each
    /// call by its expression (it would not for a role that may not execute them).
    @Test func theTrustRulesAreInlinedIntoTheDaemonsQueries() async throws {
        try await Fixture.with { f in
            let worker = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_worker"))
            let plan = try await worker.execute(
                """
                EXPLAIN VERBOSE
                SELECT iap.job_store(j.kind), iap.trust_level(t.trusted, 'google', p.initial_apple, p.initial_google)
                FROM iap.jobs j CROSS JOIN iap.trust_policy p LEFT JOIN iap.user_trust t ON t.user_id = j.submitted_by
                """
            ).rows.compactMap { $0.first ?? nil }.joined(separator: "\n")
            await worker.close()
            #expect(plan.contains("CASE j.kind WHEN 'google_purchase'::text THEN 'google'::text"), "\(plan)")
            #expect(plan.contains("COALESCE(t.trusted"), "\(plan)")
            #expect(!plan.contains("job_store") && !plan.contains("trust_level"), "\(plan)")
        }
    }

    @Test func theGameCallsEachFunctionByPositionAndByName() async throws {
        try await Fixture.with { f in
            let game = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app"))
            let receipt = Receipts.paying("1")
            let token = UUID().uuidString.lowercased()
            for call in [
                "SELECT iap.enqueue_receipt($1, 'u1', 'gems', $2, 2)",
                "SELECT iap.enqueue_receipt(p_order_id => $1, p_user_id => 'u1', p_product_id => 'gems', "
                    + "p_receipt_data => $2, p_quantity => 2)",
            ].enumerated() {
                _ = try await game.execute(call.element, ["r\(call.offset)", receipt])
            }
            for call in [
                "SELECT iap.enqueue_transaction($1, 'u1', 'gems', '42', 2, $2::uuid)",
                // By name, the token without the quantity before it.
                "SELECT iap.enqueue_transaction(order_id => $1, user_id => 'u1', product_id => 'gems', "
                    + "transaction => '42', app_account_token => $2::uuid, quantity => 2)",
            ].enumerated() {
                _ = try await game.execute(call.element, ["t\(call.offset)", token])
            }
            for call in [
                "SELECT iap.enqueue_google_purchase($1, 'u1', 'gems', 'token.1', 2, 'account-1')",
                "SELECT iap.enqueue_google_purchase(order_id => $1, user_id => 'u1', product_id => 'gems', "
                    + "purchase_token => 'token.1', account_id => 'account-1', quantity => 2)",
            ].enumerated() {
                _ = try await game.execute(call.element, ["g\(call.offset)"])
            }
            for (prefix, kind, input) in [
                ("r", "receipt", receipt), ("t", "transaction", "42"), ("g", "google_purchase", "token.1"),
            ] {
                for order in ["\(prefix)0", "\(prefix)1"] {
                    let row = try await f.row(
                        """
                        SELECT o.user_id, o.product_id, o.quantity, o.app_account_token::text AS token, o.account_id,
                               j.kind, j.receipt_data, j.submitted_by
                        FROM iap.orders o JOIN iap.jobs j USING (order_id) WHERE o.order_id = $1
                        """,
                        [order]
                    )
                    #expect(row["user_id"] == "u1" && row["product_id"] == "gems" && row["quantity"] == "2", "\(order)")
                    #expect(row["kind"] == kind && row["receipt_data"] == input && row["submitted_by"] == "u1")
                    #expect(row["token"] == (prefix == "t" ? token : nil), "\(order)")
                    #expect(row["account_id"] == (prefix == "g" ? "account-1" : nil), "\(order)")
                }
            }

            // The checkout, then the ledger rows a daemon would have written, owed to u2.
            for call in [
                "SELECT iap.create_order($1, 'u2', 'gems', 1) AS checkout",
                "SELECT iap.create_order(order_id => $1, user_id => 'u2', product_id => 'gems', quantity => 1) "
                    + "AS checkout",
            ].enumerated() {
                let order = "c\(call.offset)"
                let checkout = try await game.execute(call.element, [order]).first?["checkout"]
                let stored = try await f.value("SELECT checkout_at FROM iap.orders WHERE order_id = $1", [order])
                #expect(checkout != nil && checkout == stored, "\(call.element)")
            }
            for order in ["d0", "d1", "d2", "d3"] {
                _ = try await f.connection.execute("SELECT iap.create_order($1, 'u2', 'gems')", [order])
                try await f.connection.execute(
                    """
                    INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment)
                    VALUES ($1 || '-tx', $1, 'u2', 'gems', 1, 'Production')
                    """,
                    [order]
                )
                try await f.connection.execute(
                    "UPDATE iap.orders SET delivered_quantity = 1, outcome = 'full', status = 'verified' WHERE order_id = $1",
                    [order]
                )
            }
            for call in [
                "SELECT transaction_id FROM iap.owed_deliveries($1) ORDER BY 1",
                "SELECT transaction_id FROM iap.owed_deliveries(user_id => $1) ORDER BY 1",
            ] {
                let owed = try await game.execute(call, ["u2"]).rows.map { $0[0] }
                #expect(owed == ["d0-tx", "d1-tx", "d2-tx", "d3-tx"], "\(call)")
            }
            let marked = [
                ("d0", "SELECT iap.mark_granted($1) AS marked"),
                ("d1", "SELECT iap.mark_granted(order_id => $1) AS marked"),
                ("d2", "SELECT iap.mark_granted($1, ARRAY[$1 || '-tx']) AS marked"),
                ("d3", "SELECT iap.mark_granted(order_id => $1, transaction_ids => ARRAY[$1 || '-tx']) AS marked"),
            ]
            for (order, call) in marked {
                #expect(try await game.execute(call, [order]).first?["marked"] == "1", "\(call)")
                #expect(
                    try await f.value("SELECT status::text FROM iap.orders WHERE order_id = $1", [order]) == "finished"
                )
            }
            for call in [
                ("c0", "SELECT iap.close_order($1)"),
                ("c1", "SELECT iap.close_order(order_id => $1)"),
            ] {
                _ = try await game.execute(call.1, [call.0])
                #expect(
                    try await f.value("SELECT status::text FROM iap.orders WHERE order_id = $1", [call.0]) == "closed"
                )
            }
            await game.close()
        }
    }

    @Test func theOperatorAndRetentionFunctionsTakeTheirParametersByName() async throws {
        try await Fixture.with { f in
            let failed = try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.setJob(failed, state: "failed", secondsAgo: 7200)
            let retried = try await f.value("SELECT iap.retry_order(p_order_id => 'o1')")
            #expect(retried != nil && retried != String(failed))
            #expect(try await f.value("SELECT iap.cancel_order(p_order_id => 'o1')") == "1")
            #expect(
                try await f.value("SELECT iap.purge_finished(p_older_than => interval '1 hour', p_batch => 10)") == "1"
            )
            // No such payment: the call was understood, and refused for its arguments.
            await #expect {
                try await f.connection.execute("SELECT iap.assign_payment(transaction_id => '9', order_id => 'o1')")
            } throws: { error in
                (error as? PostgresError)?.sqlState == "P0002"
            }
        }
    }
}

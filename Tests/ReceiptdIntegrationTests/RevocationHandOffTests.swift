import Foundation
import ReceiptdCore
import Testing

/// The SQL contract of what the stores report after delivery, as the game sees it: revocations handed over
/// (`owed_revocations`, `mark_revocation_handled`, `NOTIFY iap_revoked`), consent to consumption answers, and the
/// checkout binding an order to the app account token or account id. Rows are written in SQL, as the daemons'
/// processing writes them, so the contract is checked on its own.
@Suite struct RevocationHandOffTests {
    /// A delivered ledger row of `user`'s order `order`, as a settle writes it; granted when `granted`.
    static func deliver(
        _ f: Fixture,
        order: String,
        transaction: String,
        user: String = "u1",
        product: String = "gems",
        quantity: Int = 1,
        granted: Bool = false
    ) async throws {
        try await f.connection.execute(
            "SELECT iap.create_order($1, $2, $3, $4)",
            [order, user, product, quantity]
        )
        try await f.connection.execute(
            """
            INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, environment, granted_at)
            VALUES ($1, $2, $3, $4, $5, 'Production', CASE WHEN $6 THEN now() END)
            """,
            [transaction, order, user, product, quantity, granted]
        )
        try await f.connection.execute(
            """
            UPDATE iap.orders SET delivered_quantity = $2, outcome = 'full', status = 'verified' WHERE order_id = $1
            """,
            [order, quantity]
        )
    }

    /// The processor's revocation: the ledger row gets `revoked_at` (`secondsAgo` back), a reason and a share.
    static func revoke(
        _ f: Fixture,
        _ transaction: String,
        reason: String = "refund_other",
        percentage: Int? = nil,
        secondsAgo: Int = 0
    ) async throws {
        try await f.connection.execute(
            """
            UPDATE iap.deliveries
            SET revoked_at = now() - make_interval(secs => $2), revocation_reason = $3, revocation_percentage = $4
            WHERE transaction_id = $1
            """,
            [transaction, secondsAgo, reason, percentage]
        )
    }

    @Test func owedRevocationsListsRevokedUnhandledRowsOldestFirstUntilMarkedHandled() async throws {
        try await Fixture.with { f in
            try await Self.deliver(f, order: "o1", transaction: "t1", quantity: 3, granted: true)
            try await Self.deliver(f, order: "o2", transaction: "t2", product: "shield")
            try await Self.deliver(f, order: "o3", transaction: "t3")
            try await Self.deliver(f, order: "other", transaction: "t4", user: "u2", granted: true)
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "0")

            try await Self.revoke(f, "t2", reason: "family_sharing", secondsAgo: 60)
            try await Self.revoke(f, "t1", reason: "refund_app_issue", percentage: 37_500, secondsAgo: 120)
            try await Self.revoke(f, "t4")
            let rows = try await f.connection.execute(
                """
                SELECT transaction_id, order_id, product_id, quantity, revoked_at < now() AS past, revocation_reason,
                       granted, revocation_percentage
                FROM iap.owed_revocations('u1')
                """
            ).namedRows
            #expect(rows.map { $0["transaction_id"] } == ["t1", "t2"])
            let (first, second) = (try #require(rows.first), try #require(rows.last))
            #expect(
                first["order_id"] == "o1" && first["product_id"] == "gems" && first["quantity"] == "3"
                    && first["past"] == "t" && first["revocation_reason"] == "refund_app_issue"
                    && first["granted"] == "t" && first["revocation_percentage"] == "37500"
            )
            #expect(
                second["order_id"] == "o2" && second["product_id"] == "shield" && second["quantity"] == "1"
                    && second["revocation_reason"] == "family_sharing" && second["granted"] == "f"
                    && second["revocation_percentage"] == nil
            )
            // Revoked rows are never owed deliveries, granted or not; the unrevoked one still is.
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.owed_deliveries('u1')") == "t3")

            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['t1', 't2', 't3', 'nope'])") == "2")
            #expect(try await f.value("SELECT iap.mark_revocation_handled(ARRAY['t1', 't2'])") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u1')") == "0")
            #expect(try await f.value("SELECT count(*) FROM iap.owed_revocations('u2')") == "1")
            #expect(
                try await f.value("SELECT count(*) FROM iap.deliveries WHERE revocation_handled_at IS NOT NULL") == "2"
            )
            // Handled revocations stay out of owed_deliveries too.
            #expect(try await f.value("SELECT string_agg(transaction_id, ',') FROM iap.owed_deliveries('u1')") == "t3")

            let refused = await #expect(throws: PostgresError.self) {
                try await f.connection.execute("SELECT iap.mark_revocation_handled(NULL)")
            }
            #expect(refused?.sqlState == "22023")
        }
    }

    @Test func everyRevocationNotifiesListenersOnIapRevokedOnce() async throws {
        try await Fixture.with { f in
            try await Self.deliver(f, order: "o1", transaction: "t1", user: "alice", granted: true)
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_revoked")
            try await Self.revoke(f, "t1", secondsAgo: 5)
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
            let payload = try #require(notes.first { $0.channel == "iap_revoked" }?.payload)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: String])
            #expect(object == ["order_id": "o1", "user_id": "alice", "transaction_id": "t1"])

            // Changing an existing revocation (its reason, its time) is no new revocation: no second NOTIFY.
            try await Self.revoke(f, "t1", reason: "refund_app_issue")
            let again = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 500) }
            #expect(again.filter { $0.channel == "iap_revoked" }.isEmpty)
            await listener.close()
        }
    }

    @Test func theGameCallsTheRevocationAndConsentFunctionsByPositionAndByName() async throws {
        try await Fixture.with { f in
            for (order, transaction) in [("o1", "t1"), ("o2", "t2")] {
                try await Self.deliver(f, order: order, transaction: transaction, granted: true)
                try await Self.revoke(f, transaction)
            }
            let game = try await PostgresConnection.connect(try await f.loginRole(in: "receiptd_app"))
            for call in [
                "SELECT transaction_id FROM iap.owed_revocations($1) ORDER BY 1",
                "SELECT transaction_id FROM iap.owed_revocations(user_id => $1) ORDER BY 1",
            ] {
                #expect(try await game.execute(call, ["u1"]).rows.map { $0[0] } == ["t1", "t2"], "\(call)")
            }
            for (transaction, call) in [
                ("t1", "SELECT iap.mark_revocation_handled(ARRAY[$1]) AS marked"),
                ("t2", "SELECT iap.mark_revocation_handled(transaction_ids => ARRAY[$1]) AS marked"),
            ] {
                #expect(try await game.execute(call, [transaction]).first?["marked"] == "1", "\(call)")
            }
            for (user, call) in [
                ("p1", "SELECT iap.set_consumption_consent($1, true)"),
                ("p2", "SELECT iap.set_consumption_consent(user_id => $1, consented => true)"),
            ] {
                _ = try await game.execute(call, [user])
            }
            #expect(
                try await f.value(
                    "SELECT string_agg(user_id || ':' || consented, ',' ORDER BY user_id) FROM iap.consumption_consent"
                )
                    == "p1:true,p2:true"
            )
            // The game reads the ledger only through its functions.
            await #expect(throws: PostgresError.self) {
                try await game.execute("SELECT count(*) FROM iap.deliveries")
            }
            await game.close()
        }
    }

    @Test func consentIsOneRowPerUserThatTheLatestCallSets() async throws {
        try await Fixture.with { f in
            try await f.connection.execute("SELECT iap.set_consumption_consent('u1', true)")
            let first = try await f.value("SELECT changed_at FROM iap.consumption_consent WHERE user_id = 'u1'")
            try await f.connection.execute("SELECT iap.set_consumption_consent('u1', false)")
            let row = try await f.row(
                "SELECT count(*) OVER () AS n, consented, changed_at >= $1::timestamptz AS later FROM iap.consumption_consent",
                [first]
            )
            #expect(row["n"] == "1" && row["consented"] == "f" && row["later"] == "t")
            try await f.connection.execute("SELECT iap.set_consumption_consent('u1', true)")
            #expect(try await f.value("SELECT consented FROM iap.consumption_consent WHERE user_id = 'u1'") == "t")

            for call in [
                "SELECT iap.set_consumption_consent('u1', NULL)",
                "SELECT iap.set_consumption_consent(NULL, true)",
                "SELECT iap.set_consumption_consent('', true)",
            ] {
                let refused = await #expect(throws: PostgresError.self, "\(call)") {
                    try await f.connection.execute(call)
                }
                #expect(refused?.sqlState == "22023", "\(call)")
            }
            #expect(try await f.value("SELECT consented FROM iap.consumption_consent WHERE user_id = 'u1'") == "t")
        }
    }

    @Test func createOrderBindsTheAppAccountTokenAndTheAccountOnce() async throws {
        try await Fixture.with { f in
            let token = UUID().uuidString.lowercased()
            let other = UUID().uuidString.lowercased()
            let bound = "SELECT app_account_token::text AS token, account_id FROM iap.orders WHERE order_id = $1"
            let checkout = try await f.value(
                "SELECT iap.create_order('o1', 'u1', 'gems', 1, $1::uuid, 'acct-1')",
                [token]
            )
            #expect(checkout != nil)
            var row = try await f.row(bound, ["o1"])
            #expect(row["token"] == token && row["account_id"] == "acct-1")
            // The same call again, by name or with the bindings left out (NULL: not given), returns the same time.
            for call in [
                "SELECT iap.create_order('o1', 'u1', 'gems', 1, $1::uuid, 'acct-1')",
                "SELECT iap.create_order(order_id => 'o1', user_id => 'u1', product_id => 'gems', "
                    + "app_account_token => $1::uuid, account_id => 'acct-1')",
                "SELECT iap.create_order('o1', 'u1', 'gems', 1, NULL, NULL)",
                "SELECT iap.create_order('o1', 'u1', 'gems')",
                "SELECT iap.create_order('o1', 'u1', 'gems', 1)",
            ] {
                #expect(try await f.value(call, call.contains("$1") ? [token] : []) == checkout, "\(call)")
            }
            row = try await f.row(bound, ["o1"])
            #expect(row["token"] == token && row["account_id"] == "acct-1")

            for (call, parameter) in [
                ("SELECT iap.create_order('o1', 'u1', 'gems', 1, $1::uuid)", other),
                (
                    "SELECT iap.create_order(order_id => 'o1', user_id => 'u1', product_id => 'gems', account_id => $1)",
                    "acct-2"
                ),
            ] {
                let refused = await #expect(throws: PostgresError.self, "\(call)") {
                    try await f.connection.execute(call, [parameter])
                }
                #expect(refused?.sqlState == "22023", "\(call)")
            }
            row = try await f.row(bound, ["o1"])
            #expect(row["token"] == token && row["account_id"] == "acct-1")

            // An order created without them is bound by a later call that gives them.
            try await f.connection.execute("SELECT iap.create_order('o2', 'u1', 'gems', 2)")
            #expect(try await f.row(bound, ["o2"])["token"] == nil)
            try await f.connection.execute("SELECT iap.create_order('o2', 'u1', 'gems', 2, $1::uuid)", [token])
            try await f.connection.execute("SELECT iap.create_order('o2', 'u1', 'gems', 2, account_id => 'acct-9')")
            row = try await f.row(bound, ["o2"])
            #expect(row["token"] == token && row["account_id"] == "acct-9")

            // One create_order only: the old four-argument form is gone, so no call is ambiguous.
            #expect(
                try await RoutineTests.functions(f.connection).filter { $0.hasPrefix("create_order(") }
                    == ["create_order(text, text, text, integer, uuid, text)"]
            )
            let badAccount = await #expect(throws: PostgresError.self) {
                try await f.connection.execute("SELECT iap.create_order('o3', 'u1', 'gems', 1, NULL, '')")
            }
            #expect(badAccount?.sqlState == "22023")
        }
    }
}

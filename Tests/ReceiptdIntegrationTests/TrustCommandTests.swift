import Foundation
import ReceiptdCore
import Testing

/// `receiptd trust`, and the provisional grants and untrusted players in `status` and `show`, through the binary as
/// an operator runs it, with the `receiptd_operator` role only.
@Suite struct TrustCommandTests {
    @Test func trustShowsBothStoresAtTheirInitialLevels() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            let levels = try Self.levels(["trust", "u1"], url)
            #expect(levels.map { $0["store"] as? String } == ["apple", "google"])
            let apple = try #require(levels.first)
            #expect(
                apple["user_id"] as? String == "u1" && apple["level"] as? String == "trusted"
                    && apple["trusted"] as? Bool == true && apple["initial"] as? Bool == true
                    && apple["streak"] as? Int == 0 && apple["unconfirmed_grants"] as? Int == 0
            )
            // Every key is there, null for what no row records: one shape for scripts.
            #expect(apple.keys.contains("changed_at") && apple["changed_at"] is NSNull && apple["reason"] is NSNull)
            #expect(levels.last?["level"] as? String == "untrusted" && levels.last?["initial"] as? Bool == true)

            let google = try Self.levels(["trust", "u1", "--store", "google"], url)
            #expect(google.count == 1 && google.first?["store"] as? String == "google")

            let table = try Self.run(["trust", "u1"], url)
            #expect(table.status == 0, "\(table.stderr)")
            let lines = table.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first == "User u1" && lines.count == 4, "\(table.stdout)")
            #expect(lines[2].hasPrefix("apple ") && lines[2].contains(" trusted ") && lines[2].contains(" yes "))
            #expect(lines[3].hasPrefix("google ") && lines[3].contains(" untrusted "))
            #expect(try await f.value("SELECT count(*) FROM iap.user_trust") == "0")
        }
    }

    @Test func trustShowsWhatTheRulesRecordedAndTheUnconfirmedGrants() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            try await f.enqueue("bad", user: "u1", receipt: Receipts.paying("1"))
            try await f.setOutcome("bad", "invalid")
            try await f.enqueue("p1", user: "u2", receipt: Receipts.paying("2"))
            try await Self.grantProvisionally(f, "p1")

            let u1 = try #require(try Self.levels(["trust", "u1", "--store", "apple"], url).first)
            #expect(
                u1["level"] as? String == "untrusted" && u1["reason"] as? String == "invalid"
                    && u1["order_id"] as? String == "bad" && u1["initial"] as? Bool == false
                    && u1["changed_at"] is String
            )
            let u2 = try #require(try Self.levels(["trust", "u2", "--store", "apple"], url).first)
            #expect(u2["level"] as? String == "trusted" && u2["unconfirmed_grants"] as? Int == 1)
            let table = try Self.run(["trust", "u1"], url).stdout
            #expect(table.contains(" invalid ") && table.contains(" bad "), "\(table)")
        }
    }

    @Test func trustSetRecordsTheOperatorAndPrintsTheNewLevel() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            let set = try #require(
                try Self.levels(["trust", "u1", "--store", "apple", "--set", "untrusted"], url).first
            )
            #expect(
                set["store"] as? String == "apple" && set["level"] as? String == "untrusted"
                    && set["initial"] as? Bool == false && set["order_id"] is NSNull
            )
            let reason = try #require(set["reason"] as? String)
            #expect(reason.hasPrefix("operator: ") && reason.count > "operator: ".count)
            let name = ProcessInfo.processInfo.userName
            if !name.isEmpty { #expect(reason == "operator: \(name)") }
            #expect(
                try await f.value("SELECT trusted::text || ' ' || reason FROM iap.user_trust WHERE user_id = 'u1'")
                    == "false \(reason)"
            )
            // The other store keeps its initial level.
            #expect(try await f.value("SELECT count(*) FROM iap.user_trust") == "1")

            let text = try Self.run(["trust", "u1", "--store", "google", "--set", "trusted"], url)
            #expect(text.status == 0, "\(text.stderr)")
            #expect(text.stdout.hasPrefix("Trust of u1 in google set to trusted.\n"), "\(text.stdout)")
            #expect(text.stdout.contains("google ") && !text.stdout.contains("apple "))
            let both = try Self.levels(["trust", "u1"], url)
            #expect(both.map { $0["level"] as? String } == ["untrusted", "trusted"])
            #expect(both.allSatisfy { ($0["reason"] as? String)?.hasPrefix("operator: ") == true })
        }
    }

    @Test func badValuesAreClearErrorsThatChangeNothing() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            let noStore = try Self.run(["trust", "u1", "--set", "untrusted"], url)
            #expect(noStore.status == 2 && noStore.stderr.contains("--set needs --store"), "\(noStore.stderr)")
            #expect(noStore.stdout.isEmpty)
            for arguments in [
                ["trust", "u1", "--store", "amazon"], ["trust", "u1", "--store", "apple", "--set", "maybe"],
                ["trust", ""], ["trust", "  "], ["trust"], ["trust", "", "--store", "apple", "--set", "trusted"],
            ] {
                let run = try Self.run(arguments, url)
                #expect(run.status == 2 && !run.stderr.isEmpty && run.stdout.isEmpty, "\(arguments): \(run.stderr)")
            }
            let amazon = try Self.run(["trust", "u1", "--store", "amazon"], url)
            #expect(amazon.stderr.contains("amazon"), "\(amazon.stderr)")
            // A user id the database refuses (over 255 characters): exit 4, the database's reason, nothing written.
            let long = try Self.run(
                ["trust", String(repeating: "x", count: 300), "--store", "apple", "--set", "untrusted"],
                url
            )
            #expect(long.status == 4 && long.stderr.contains("over the limit of 255"), "\(long.stderr)")
            #expect(try await f.value("SELECT count(*) FROM iap.user_trust") == "0")
        }
    }

    @Test func statusCountsProvisionalGrantsAndUntrustedUsers() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            let quiet = try Self.run(["status"], url)
            #expect(
                quiet.stdout.contains("\nProvisional grants: 0 unconfirmed; in the last 24 h 0 confirmed, 0 refuted\n"),
                "\(quiet.stdout)"
            )
            #expect(quiet.stdout.contains("\nUntrusted users: apple 0, google 0 "))

            for (index, order) in ["open", "paid", "refuted", "old", "old2"].enumerated() {
                try await f.enqueue(order, user: "u\(index)", receipt: Receipts.paying(String(index + 1)))
            }
            try await Self.grantProvisionally(f, "open")
            try await Self.insertGrant(f, "paid", state: "confirmed", resolvedHoursAgo: 1)
            try await Self.insertGrant(f, "refuted", state: "refuted", resolvedHoursAgo: 2)
            try await Self.insertGrant(f, "old", state: "refuted", resolvedHoursAgo: 30)
            try await Self.insertGrant(f, "old2", state: "confirmed", resolvedHoursAgo: 25)
            try await f.connection.execute(
                """
                INSERT INTO iap.user_trust (user_id, store, trusted, reason) VALUES
                    ('a1', 'apple', false, 'invalid'), ('a2', 'apple', false, 'replay'), ('a3', 'apple', true, 'restored'),
                    ('g1', 'google', false, 'initial'), ('a1', 'google', true, 'operator: x')
                """
            )

            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["status", "--json"], url).stdout.utf8))
                    as? [String: Any]
            )
            let grants = try #require(document["provisional_grants"] as? [String: Int])
            #expect(grants == ["unconfirmed": 1, "confirmed_last_day": 1, "refuted_last_day": 1])
            #expect(document["untrusted_users"] as? [String: Int] == ["apple": 2, "google": 1])

            let text = try Self.run(["status"], url).stdout
            #expect(
                text.contains(
                    "\nProvisional grants: 1 unconfirmed; in the last 24 h 1 confirmed, 1 refuted (refuted grants are "
                        + "owed back: see iap.owed_revocations, reason provisional_refuted)\n"
                ),
                "\(text)"
            )
            #expect(
                text.contains("\nUntrusted users: apple 2, google 1 (recorded levels; see `receiptd trust USER`)\n")
            )
        }
    }

    @Test func showMarksAProvisionalGrant() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            try await f.enqueue("p1", receipt: Receipts.paying("1"))
            try await f.enqueue("plain", user: "u2", receipt: Receipts.paying("2"))
            try await Self.grantProvisionally(f, "p1")

            let open = try Self.detail("p1", url)
            let grant = try #require(open["provisional_grant"] as? [String: Any])
            #expect(
                grant["state"] as? String == "unconfirmed" && grant["cause"] as? String == "store_failing"
                    && grant["product_id"] as? String == "gems" && grant["quantity"] as? Int == 1
                    && grant["created_at"] is String && grant["granted_at"] == nil && grant["job_id"] is Int
            )
            var text = try Self.run(["show", "p1"], url).stdout
            #expect(
                text.contains(
                    "\ngrant     provisional, unconfirmed (store_failing): granted before verification ended, not yet "
                        + "granted by the game\n"
                ),
                "\(text)"
            )
            #expect(text.contains("\nProvisional grant:\nSTATE ") && text.contains("GRANTED BY GAME"))

            // The game grants it, then verification refutes it: the revocation is owed until the game handles it.
            try await f.connection.execute("SELECT iap.mark_granted('p1', ARRAY['provisional:p1'])")
            try await f.setOutcome("p1", "invalid")
            let refuted = try #require(try Self.detail("p1", url)["provisional_grant"] as? [String: Any])
            #expect(
                refuted["state"] as? String == "refuted" && refuted["refuted_by"] as? String == "invalid"
                    && refuted["granted_at"] is String && refuted["resolved_at"] is String
                    && refuted["revocation_handled_at"] == nil,
                "\(refuted)"
            )
            text = try Self.run(["show", "p1"], url).stdout
            #expect(
                text.contains(
                    "\ngrant     provisional, refuted (store_failing): verification ended invalid; revocation owed "
                        + "(iap.owed_revocations, provisional_refuted)\n"
                ),
                "\(text)"
            )
            try await f.connection.execute("SELECT iap.mark_revocation_handled(ARRAY['provisional:p1'])")
            let handled = try #require(try Self.detail("p1", url)["provisional_grant"] as? [String: Any])
            #expect(handled["revocation_handled_at"] is String)
            #expect(try Self.run(["show", "p1"], url).stdout.contains("; revocation handled\n"))

            #expect(try Self.detail("plain", url)["provisional_grant"] == nil)
            let plain = try Self.run(["show", "plain"], url).stdout
            #expect(!plain.contains("Provisional grant") && !plain.contains("\ngrant "), "\(plain)")
        }
    }

    /// Makes `order`'s job fail with a 503 for a minute and grants it through `iap.grant_provisional`, as the
    /// daemon's `TrustKeeper` does.
    static func grantProvisionally(_ f: Fixture, _ order: String) async throws {
        try await f.connection.execute(
            "UPDATE iap.jobs SET last_error = 'http: 503', created_at = now() - interval '1 minute' WHERE order_id = $1",
            [order]
        )
        let granted = try await f.connection.execute(
            "SELECT order_id FROM iap.grant_provisional(interval '1 second', 2, 'verify_receipt', ARRAY['http'])"
        )
        #expect(granted.rows.map { $0.first ?? nil } == [order])
    }

    /// Inserts a grant of `order` already resolved `resolvedHoursAgo` hours ago.
    static func insertGrant(_ f: Fixture, _ order: String, state: String, resolvedHoursAgo: Int) async throws {
        try await f.connection.execute(
            """
            INSERT INTO iap.provisional_grants (order_id, user_id, store, product_id, quantity, cause, created_at, state,
                                                resolved_at, refuted_by)
            SELECT order_id, user_id, 'apple', product_id, quantity, 'breaker_open', now() - interval '2 days', $2,
                   now() - make_interval(hours => $3), CASE WHEN $2 = 'refuted' THEN 'invalid'::iap.outcome END
            FROM iap.orders WHERE order_id = $1
            """,
            [order, state, resolvedHoursAgo]
        )
    }

    /// Runs `receiptd` as the operator whose connection string is `url`.
    static func run(_ arguments: [String], _ url: String) throws -> ReceiptdBinary.Run {
        try ReceiptdBinary.run(arguments + ["--database-url", url])
    }

    /// `receiptd trust … --json`: the array of levels.
    static func levels(_ arguments: [String], _ url: String) throws -> [[String: Any]] {
        let run = try run(arguments + ["--json"], url)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [[String: Any]])
    }

    /// `receiptd show ORDER --json`.
    static func detail(_ order: String, _ url: String) throws -> [String: Any] {
        let run = try run(["show", order, "--json"], url)
        #expect(run.status == 0, "\(run.stderr)")
        return try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
    }
}

import Foundation
import ReceiptdCore
import Testing

/// What operators see of the store notifications, through the binary as a shell runs it, with the
/// `receiptd_operator` role: `receiptd notifications`, the notifications and revocations in `receiptd show`, and
/// the lines of `receiptd status`. Rows are written in SQL as the intake and the processing write them.
@Suite struct NotificationCommandTests {
    /// Text that only the payloads hold: no command ever prints it.
    static let payloadMarker = "payload-only-marker"

    /// Records a notification received `secondsAgo` seconds ago; processed (a second later) when `result` is set.
    @discardableResult
    static func record(
        _ f: Fixture,
        id: String,
        type: String,
        subtype: String? = nil,
        transaction: String? = nil,
        original: String? = nil,
        environment: String? = "Production",
        store: String = "apple",
        source: String = "push",
        secondsAgo: Int,
        result: String? = nil,
        error: String? = nil
    ) async throws -> Int64 {
        let row = try await f.value(
            """
            INSERT INTO iap.store_notifications (store, notification_id, notification_type, subtype, transaction_id,
                original_transaction_id, environment, signed_at, received_at, source, processed_at, result, error, payload)
            VALUES ($1, $2, $3, $4, $5, $6, $7, now() - make_interval(secs => $8 + 1), now() - make_interval(secs => $8),
                    $9, CASE WHEN $10::text IS NOT NULL THEN now() - make_interval(secs => $8 - 1) END, $10, $11,
                    jsonb_build_object('notification', jsonb_build_object('marker', $12::text)))
            RETURNING id
            """,
            [
                store, id, type, subtype, transaction, original, environment, secondsAgo, source, result, error,
                Self.payloadMarker,
            ]
        )
        return try #require(row.flatMap { Int64($0) })
    }

    /// Runs `receiptd arguments… --database-url URL` and requires exit status 0.
    static func run(_ arguments: [String], _ url: String) throws -> String {
        let run = try ReceiptdBinary.run(arguments + ["--database-url", url])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        #expect(!run.stdout.contains(payloadMarker), "\(arguments) printed a payload")
        return run.stdout
    }

    /// The JSON list `arguments` print.
    static func list(_ arguments: [String], _ url: String) throws -> [[String: Any]] {
        try #require(
            try JSONSerialization.jsonObject(with: Data(try run(arguments + ["--json"], url).utf8)) as? [[String: Any]]
        )
    }

    @Test func notificationsListsNewestFirstFilteredAndNeverThePayload() async throws {
        try await Fixture.with { f in
            try await Self.record(f, id: "n-old", type: "TEST", secondsAgo: 7_200, result: "recorded")
            try await Self.record(
                f,
                id: "n-refund",
                type: "REFUND",
                transaction: "1001",
                secondsAgo: 600,
                result: "revoked"
            )
            try await Self.record(
                f,
                id: "n-ask",
                type: "CONSUMPTION_REQUEST",
                transaction: "1002",
                environment: "Sandbox",
                source: "history",
                secondsAgo: 300
            )
            try await Self.record(
                f,
                id: "n-google",
                type: "VOIDED",
                transaction: "GPA.1",
                environment: nil,
                store: "google",
                secondsAgo: 60,
                result: "failed",
                error: "no such\r\nline"
            )
            let url = try await f.loginRole(in: "receiptd_operator")

            let table = try Self.run(["notifications"], url).split(separator: "\n").map(String.init)
            #expect(table.count == 5, "\(table)")
            #expect(
                table.first?.split(separator: " ", omittingEmptySubsequences: true)
                    == [
                        "RECEIVED", "STORE", "TYPE", "SUBTYPE", "TRANSACTION", "ENV", "SOURCE", "PROCESSED", "RESULT",
                        "ERROR",
                    ]
            )
            #expect(table[1].contains("VOIDED") && table[1].contains(#"no such\r\nline"#))
            #expect(table[3].contains("REFUND") && table[3].contains("1001") && table[3].contains("revoked"))
            #expect(
                table[2].contains("CONSUMPTION_REQUEST") && table[2].contains("history") && table[2].contains("not yet")
            )
            #expect(table[4].contains("TEST") && table[4].contains("recorded"))

            let all = try Self.list(["notifications"], url)
            #expect(all.map { $0["notification_id"] as? String } == ["n-google", "n-ask", "n-refund", "n-old"])
            let refund = try #require(all.first { $0["notification_id"] as? String == "n-refund" })
            #expect(
                Set(refund.keys)
                    == [
                        "received_at", "store", "notification_id", "type", "transaction_id", "environment", "source",
                        "processed_at", "result",
                    ]
            )
            #expect(
                refund["store"] as? String == "apple" && refund["type"] as? String == "REFUND"
                    && refund["transaction_id"] as? String == "1001" && refund["environment"] as? String == "Production"
                    && refund["source"] as? String == "push" && refund["result"] as? String == "revoked"
            )
            let received = try #require(refund["received_at"] as? String)
            let processed = try #require(refund["processed_at"] as? String)
            #expect(received.hasSuffix("Z") && processed > received, "\(received) \(processed)")
            #expect(all.first?["error"] as? String == "no such\r\nline")
            #expect(all.first { $0["notification_id"] as? String == "n-ask" }?["processed_at"] == nil)

            let ids = { (arguments: [String]) in
                try Self.list(["notifications"] + arguments, url).map { $0["notification_id"] as? String }
            }
            #expect(try ids(["--type", "refund"]) == ["n-refund"])
            #expect(try ids(["--type", "TEST"]) == ["n-old"])
            #expect(try ids(["--store", "google"]) == ["n-google"])
            #expect(try ids(["--store", "apple", "--since", "1h"]) == ["n-ask", "n-refund"])
            #expect(try ids(["--limit", "2"]) == ["n-google", "n-ask"])
            let since = try #require(
                all.first { $0["notification_id"] as? String == "n-ask" }?["received_at"] as? String
            )
            #expect(try ids(["--since", since]) == ["n-google", "n-ask"])
            #expect(try Self.run(["notifications", "--type", "REVOKE"], url) == "No notifications match.\n")

            for usage in [["--store", "amazon"], ["--limit", "0"], ["--since", "yesterday"]] {
                let run = try ReceiptdBinary.run(["notifications"] + usage + ["--database-url", url])
                #expect(run.status == 2, "\(usage): \(run.stderr)")
            }
        }
    }

    @Test func showListsTheNotificationsAboutTheOrdersTransactionsAndItsRevocations() async throws {
        try await Fixture.with { f in
            try await RevocationHandOffTests.deliver(f, order: "o1", transaction: "2001", quantity: 2, granted: true)
            try await RevocationHandOffTests.deliver(f, order: "o1b", transaction: "2002")
            try await f.connection.execute("UPDATE iap.deliveries SET order_id = 'o1' WHERE transaction_id = '2002'")
            try await RevocationHandOffTests.deliver(f, order: "o2", transaction: "2003")
            try await f.connection.execute(
                "INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id) VALUES ('1999', 'u1', 'o1')"
            )
            try await RevocationHandOffTests.revoke(f, "2001", percentage: 37_500, secondsAgo: 30)
            try await f.connection.execute(
                "UPDATE iap.deliveries SET revocation_handled_at = now() WHERE transaction_id = '2001'"
            )
            try await RevocationHandOffTests.revoke(f, "2002", reason: "family_sharing")
            try await Self.record(
                f,
                id: "n1",
                type: "REFUND",
                transaction: "2001",
                original: "2001",
                secondsAgo: 60,
                result: "revoked"
            )
            try await Self.record(
                f,
                id: "n2",
                type: "REVOKE",
                transaction: "2002",
                original: "2002",
                secondsAgo: 30,
                result: "revoked"
            )
            // By its original id only: a renewal or restore of the order's purchase.
            try await Self.record(
                f,
                id: "n3",
                type: "CONSUMPTION_REQUEST",
                transaction: "3001",
                original: "1999",
                secondsAgo: 10
            )
            try await Self.record(f, id: "n4", type: "REFUND", transaction: "2003", secondsAgo: 5, result: "revoked")
            try await Self.record(
                f,
                id: "n5",
                type: "VOIDED",
                transaction: "2001",
                store: "google",
                secondsAgo: 5,
                result: "failed"
            )
            let url = try await f.loginRole(in: "receiptd_operator")

            let text = try Self.run(["show", "o1"], url)
            let sections = text.components(separatedBy: "\n\n")
            let deliveries = try #require(sections.first { $0.hasPrefix("Deliveries:") })
            #expect(
                deliveries.contains("REVOKED") && deliveries.contains("REASON") && deliveries.contains("SHARE")
                    && deliveries.contains("REVOCATION HANDLED"),
                "\(deliveries)"
            )
            let ledgerRows = deliveries.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            let revoked = try #require(ledgerRows.first { $0.hasPrefix("2001") })
            #expect(revoked.contains("refund_other") && revoked.contains("37.5%"), "\(revoked)")
            let family = try #require(ledgerRows.first { $0.hasPrefix("2002") })
            #expect(family.contains("family_sharing") && family.contains("all") && family.hasSuffix("-"), "\(family)")
            let notifications = try #require(sections.first { $0.hasPrefix("Store notifications:") })
            let rows = notifications.split(separator: "\n").dropFirst(2)
            #expect(rows.count == 3, "\(notifications)")
            #expect(rows.first?.contains("REFUND") == true && rows.last?.contains("3001") == true)
            #expect(!notifications.contains("2003") && !notifications.contains("VOIDED"))

            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["show", "o1", "--json"], url).utf8))
                    as? [String: Any]
            )
            let listed = try #require(document["notifications"] as? [[String: Any]])
            #expect(listed.map { $0["notification_id"] as? String } == ["n1", "n2", "n3"])
            #expect(listed.first?["result"] as? String == "revoked" && listed.first?["type"] as? String == "REFUND")
            let ledger = try #require(document["deliveries"] as? [[String: Any]])
            let first = try #require(ledger.first { $0["transaction_id"] as? String == "2001" })
            #expect(
                first["revocation_reason"] as? String == "refund_other"
                    && first["revocation_percentage"] as? Int == 37_500
                    && first["revoked_at"] is String && first["revocation_handled_at"] is String
            )
            let second = try #require(ledger.first { $0["transaction_id"] as? String == "2002" })
            #expect(second["revocation_handled_at"] == nil && second["revocation_percentage"] == nil)

            let quiet = try Self.run(["show", "o2"], url)
            #expect(quiet.contains("Store notifications:") && quiet.contains("REFUND"))
            try await f.connection.execute("SELECT iap.create_order('o3', 'u1', 'gems')")
            #expect(try Self.run(["show", "o3"], url).contains("Store notifications: none"))
        }
    }

    @Test func statusCountsRevocationsTestsUnprocessedNotificationsAndOverdueAnswers() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            let empty = try Self.run(["status"], url)
            for line in [
                "Revocations unhandled for over 10 minutes: 0",
                "Last TEST notification: Production never / Sandbox never",
                "Store notifications not yet processed: 0",
                "Refund requests answered late: 0",
            ] {
                #expect(empty.contains(line + "\n"), "\(line)\n\(empty)")
            }

            try await RevocationHandOffTests.deliver(f, order: "o1", transaction: "4001", granted: true)
            try await RevocationHandOffTests.deliver(f, order: "o2", transaction: "4002")
            try await RevocationHandOffTests.deliver(f, order: "o3", transaction: "4003")
            try await RevocationHandOffTests.revoke(f, "4001", secondsAgo: 660)
            try await RevocationHandOffTests.revoke(f, "4002", secondsAgo: 60)
            try await RevocationHandOffTests.revoke(f, "4003", secondsAgo: 900)
            try await f.connection.execute("SELECT iap.mark_revocation_handled(ARRAY['4003'])")
            try await Self.record(f, id: "t-old", type: "TEST", secondsAgo: 86_400, result: "recorded")
            try await Self.record(f, id: "t-new", type: "TEST", secondsAgo: 120, result: "recorded")
            try await Self.record(
                f,
                id: "t-other",
                type: "TEST",
                environment: "Sandbox",
                store: "google",
                secondsAgo: 5,
                result: "recorded"
            )
            try await Self.record(f, id: "waiting", type: "REFUND", transaction: "4009", secondsAgo: 400)
            try await Self.record(f, id: "waiting2", type: "REFUND", transaction: "4010", secondsAgo: 10)
            for (id, state, overdueAgo) in [
                ("ask1", "waiting", 60), ("ask2", "waiting", -60), ("ask3", "answered", 60),
            ] {
                let notification = try await Self.record(
                    f,
                    id: id,
                    type: "CONSUMPTION_REQUEST",
                    transaction: "4001",
                    secondsAgo: 36_000 + overdueAgo,
                    result: "consumption_requested"
                )
                try await f.connection.execute(
                    """
                    INSERT INTO iap.refund_requests (notification_id, request_id, transaction_id, environment, user_id,
                                                     signed_at, answer_by, state, answered_by, preference)
                    SELECT n.id, n.notification_id, '4001', 'Production', 'u1',
                           now() - make_interval(secs => 36000 + $2), now() + interval '1 hour' - make_interval(secs => $2),
                           $3, CASE WHEN $3 = 'answered' THEN 'policy' END, CASE WHEN $3 = 'answered' THEN 'none' END
                    FROM iap.store_notifications n WHERE n.id = $1
                    """,
                    [notification, overdueAgo, state]
                )
            }
            let expectedTest = try #require(
                try await f.value(
                    """
                    SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                    FROM iap.store_notifications WHERE notification_id = 't-new'
                    """
                )
            )

            let status = try Self.run(["status"], url)
            let lines = status.split(separator: "\n").map(String.init)
            #expect(
                lines.contains(
                    "Revocations unhandled for over 10 minutes: 1 (revoked, not yet handled: is the game server calling "
                        + "iap.owed_revocations and iap.mark_revocation_handled?)"
                ),
                "\(status)"
            )
            #expect(lines.contains("Last TEST notification: Production \(expectedTest) (push) / Sandbox never"))
            // Received 400 s before the command ran, and a moment passed since.
            #expect(
                lines.contains { $0.hasPrefix("Store notifications not yet processed: 2 (the oldest received 6m 4") }
            )
            #expect(
                lines.contains(
                    "Refund requests answered late: 1 (not answered an hour before the store's deadline; see "
                        + "iap.stuck_jobs and iap.refund_requests)"
                )
            )
            // The lines that were there before stay as they were.
            #expect(lines.contains("Owed to games for over 10 minutes: 0"))

            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["status", "--json"], url).utf8))
                    as? [String: Any]
            )
            #expect(document["revocations_unhandled_over_ten_minutes"] as? Int == 1)
            #expect(document["unprocessed_notifications"] as? Int == 2)
            #expect((document["oldest_unprocessed_notification_seconds"] as? Int).map { $0 >= 400 } == true)
            #expect(document["refund_answers_late"] as? Int == 1)
            let tests = try #require(document["last_test_notifications"] as? [[String: Any]])
            #expect(tests.map { $0["environment"] as? String } == ["Production", "Sandbox"])
            #expect(
                tests.first?["received_at"] as? String == expectedTest && tests.first?["source"] as? String == "push"
            )
            #expect(tests.last?["received_at"] == nil)
        }
    }

    @Test func unclaimedListsAPaymentAppleReportedThatNoOrderMatched() async throws {
        try await Fixture.with { f in
            let token = UUID().uuidString.lowercased()
            let notification = try await Self.record(
                f,
                id: "charge",
                type: "ONE_TIME_CHARGE",
                transaction: "5001",
                secondsAgo: 30,
                result: "charge_unclaimed"
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, app_account_token,
                                                    notification_id)
                VALUES ('5001', 'gems', 1, 'Production', $1::uuid, $2::bigint)
                """,
                [token, notification]
            )
            let url = try await f.loginRole(in: "receiptd_operator")
            let table = try Self.run(["unclaimed"], url)
            #expect(table.contains("5001") && table.contains("gems"), "\(table)")
            let listed = try Self.list(["unclaimed"], url)
            #expect(listed.count == 1)
            let payment = try #require(listed.first)
            #expect(payment["transaction_id"] as? String == "5001" && payment["app_account_token"] as? String == token)
            #expect(payment["user_id"] == nil && payment["order_id"] == nil && payment["job_id"] == nil)
        }
    }
}

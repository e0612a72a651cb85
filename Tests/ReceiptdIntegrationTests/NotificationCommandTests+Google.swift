import Foundation
import ReceiptdCore
import Testing

extension NotificationCommandTests {
    /// Gives notification `id` the payload the Google intake records: the Pub/Sub message and the decoded data.
    static func setGooglePayload(_ f: Fixture, id: Int64, data: String) async throws {
        try await f.connection.execute(
            """
            UPDATE iap.store_notifications
            SET payload = jsonb_build_object('message', jsonb_build_object('messageId', notification_id),
                                             'notification', $2::jsonb)
            WHERE id = $1
            """,
            [id, data]
        )
    }

    @Test func notificationsListsGoogleRowsWithTheirTypesAndResults() async throws {
        try await Fixture.with { f in
            let rows: [(id: String, type: String, transaction: String?, result: String?, error: String?)] = [
                ("g-purchase", "ONE_TIME_PRODUCT_PURCHASED", "GPA.1", "charge_enqueued", nil),
                ("g-cancel", "ONE_TIME_PRODUCT_CANCELED", nil, "job_woken", nil),
                ("g-void", "VOIDED_PURCHASE", "GPA.2", "partly_revoked", nil),
                ("g-sub", "SUBSCRIPTION_RENEWED", nil, "ignored", nil),
                ("g-broken", "VOIDED_PURCHASE", "GPA.3", "failed", "no voided purchase listed"),
                ("g-waiting", "ONE_TIME_PRODUCT_PURCHASED", nil, nil, nil),
            ]
            for (index, row) in rows.enumerated() {
                try await Self.record(
                    f,
                    id: row.id,
                    type: row.type,
                    transaction: row.transaction,
                    environment: nil,
                    store: "google",
                    secondsAgo: 600 - index * 60,
                    result: row.result,
                    error: row.error
                )
            }
            try await Self.record(
                f,
                id: "a-refund",
                type: "REFUND",
                transaction: "1001",
                secondsAgo: 30,
                result: "revoked"
            )
            let url = try await f.loginRole(in: "receiptd_operator")

            let listed = try Self.list(["notifications", "--store", "google"], url)
            #expect(listed.map { $0["notification_id"] as? String } == rows.reversed().map(\.id))
            #expect(listed.allSatisfy { $0["store"] as? String == "google" && $0["environment"] == nil })
            let void = try #require(listed.first { $0["notification_id"] as? String == "g-void" })
            #expect(
                void["type"] as? String == "VOIDED_PURCHASE" && void["transaction_id"] as? String == "GPA.2"
                    && void["result"] as? String == "partly_revoked" && void["processed_at"] is String
            )
            let waiting = try #require(listed.first { $0["notification_id"] as? String == "g-waiting" })
            #expect(waiting["processed_at"] == nil && waiting["result"] == nil)

            let voids = try Self.list(["notifications", "--store", "google", "--type", "voided_purchase"], url)
            #expect(voids.map { $0["notification_id"] as? String } == ["g-broken", "g-void"])
            #expect(
                try Self.list(["notifications", "--store", "apple"], url).map { $0["notification_id"] as? String } == [
                    "a-refund"
                ]
            )

            let table = try Self.run(["notifications", "--store", "google"], url)
            let lines = table.split(separator: "\n").map(String.init)
            #expect(lines.count == rows.count + 1, "\(table)")
            let broken = try #require(lines.first { $0.contains("GPA.3") })
            #expect(
                broken.contains("google") && broken.contains("VOIDED_PURCHASE") && broken.contains("failed")
                    && broken.hasSuffix("no voided purchase listed"),
                "\(broken)"
            )
            #expect(try #require(lines.first { $0.contains("ONE_TIME_PRODUCT_CANCELED") }).contains("job_woken"))
            #expect(lines.contains { $0.contains("ONE_TIME_PRODUCT_PURCHASED") && $0.contains("not yet") })
            #expect(!table.contains("REFUND "))
        }
    }

    @Test func statusShowsWhenTheLastGoogleTestNotificationCame() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            #expect(try Self.run(["status"], url).contains("Last Google TEST notification: never\n"))
            let empty = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["status", "--json"], url).utf8))
                    as? [String: Any]
            )
            #expect(empty["last_google_test_notification"] as? String == nil)

            try await Self.record(f, id: "g-old", type: "TEST", environment: nil, store: "google", secondsAgo: 7_200)
            try await Self.record(
                f,
                id: "g-new",
                type: "TEST",
                environment: nil,
                store: "google",
                secondsAgo: 90,
                result: "recorded"
            )
            // Apple's, newer, is not Google's; nor is another Google type.
            try await Self.record(f, id: "a-test", type: "TEST", secondsAgo: 10, result: "recorded")
            try await Self.record(f, id: "g-void", type: "VOIDED_PURCHASE", store: "google", secondsAgo: 5)
            let expected = try #require(
                try await f.value(
                    """
                    SELECT to_char(received_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"')
                    FROM iap.store_notifications WHERE notification_id = 'g-new'
                    """
                )
            )
            let lines = try Self.run(["status"], url).split(separator: "\n").map(String.init)
            #expect(lines.contains("Last Google TEST notification: \(expected)"), "\(lines)")
            #expect(lines.contains { $0.hasPrefix("Last TEST notification: Production 20") })

            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["status", "--json"], url).utf8))
                    as? [String: Any]
            )
            #expect(document["last_google_test_notification"] as? String == expected)
        }
    }

    @Test func unclaimedShowsTheStoreAndWhenGoogleRefundsAnUnacknowledgedPayment() async throws {
        try await Fixture.with { f in
            let notification = try await Self.record(
                f,
                id: "g-purchase",
                type: "ONE_TIME_PRODUCT_PURCHASED",
                transaction: "GPA.9",
                environment: nil,
                store: "google",
                secondsAgo: 60,
                result: "charge_unclaimed"
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, purchase_date, store,
                                                    purchase_token, acknowledge_by, notification_id, first_seen_at)
                VALUES ('GPA.9', 'gems', 2, '2026-11-20T08:00:00Z', 'google', 'token-9', '2026-11-23T08:00:00Z',
                        $1::bigint, now() - interval '1 minute')
                """,
                [notification]
            )
            try await f.connection.execute(
                """
                INSERT INTO iap.unclaimed_payments (transaction_id, product_id, quantity, environment, app_account_token,
                                                    first_seen_at)
                VALUES ('5001', 'shield', 1, 'Production', gen_random_uuid(), now() - interval '2 minutes')
                """
            )
            let url = try await f.loginRole(in: "receiptd_operator")

            let listed = try Self.list(["unclaimed"], url)
            #expect(listed.map { $0["transaction_id"] as? String } == ["GPA.9", "5001"])
            let google = try #require(listed.first)
            #expect(
                google["store"] as? String == "google" && google["acknowledge_by"] as? String == "2026-11-23T08:00:00Z"
                    && google["quantity"] as? Int == 2 && google["notification_id"] as? Int == Int(notification),
                "\(google)"
            )
            // The token acknowledges the purchase: it is not shown.
            #expect(!(try Self.run(["unclaimed", "--json"], url)).contains("token-9"))
            let apple = try #require(listed.last)
            #expect(apple["store"] as? String == "apple" && apple["acknowledge_by"] == nil)

            let table = try Self.run(["unclaimed"], url)
            let lines = table.split(separator: "\n").map(String.init)
            let header = try #require(lines.first)
            #expect(header.contains("STORE") && header.contains("ACKNOWLEDGE BY"), "\(table)")
            let googleLine = try #require(lines.first { $0.hasPrefix("GPA.9") })
            #expect(googleLine.contains("google") && googleLine.contains("2026-11-23T08:00:00Z"), "\(googleLine)")
            let appleLine = try #require(lines.first { $0.hasPrefix("5001") })
            #expect(appleLine.contains("apple") && !appleLine.contains("2026-11-23"), "\(appleLine)")
            #expect(!table.contains("token-9"))

            // status names the first refund Google will make of them.
            let status = try Self.run(["status"], url).split(separator: "\n").map(String.init)
            #expect(
                status.contains(
                    "Unclaimed payments: 2 (see `receiptd unclaimed`); Google refunds one at 2026-11-23T08:00:00Z "
                        + "unless it is assigned before"
                ),
                "\(status)"
            )
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["status", "--json"], url).utf8))
                    as? [String: Any]
            )
            #expect(document["next_google_refund_of_unclaimed"] as? String == "2026-11-23T08:00:00Z")
            try await f.connection.execute(
                "UPDATE iap.unclaimed_payments SET assigned_at = now(), assigned_order_id = 'o1' WHERE store = 'google'"
            )
            #expect(
                try Self.run(["status"], url).split(separator: "\n").contains(
                    "Unclaimed payments: 1 (see `receiptd unclaimed`)"
                )
            )
        }
    }

    @Test func showListsTheGoogleNotificationsAboutTheOrdersLedgerIdsAndPurchaseTokens() async throws {
        try await Fixture.with { f in
            try await RevocationHandOffTests.deliver(f, order: "g1", transaction: "GPA.1", quantity: 5, granted: true)
            try await RevocationHandOffTests.deliver(f, order: "g2", transaction: "GPA.2")
            try await f.connection.execute("UPDATE iap.deliveries SET store = 'google'")
            try await f.connection.execute(
                """
                UPDATE iap.deliveries SET revoked_quantity = 2, revocation_handled_quantity = 1
                WHERE transaction_id = 'GPA.1'
                """
            )
            for (order, token) in [("g1", "token-1"), ("g2", "token-2")] {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.jobs (order_id, kind, receipt_data, receipt_sha256, state)
                    VALUES ($1, 'google_purchase', $2, 'h', 'succeeded')
                    """,
                    [order, token]
                )
            }
            // Recorded before the ledger id was known: found by the job's purchase token.
            let purchase = try await Self.record(
                f,
                id: "m-purchase",
                type: "ONE_TIME_PRODUCT_PURCHASED",
                environment: nil,
                store: "google",
                secondsAgo: 300,
                result: "charge_enqueued"
            )
            try await Self.setGooglePayload(
                f,
                id: purchase,
                data:
                    #"{"packageName": "com.example.game", "oneTimeProductNotification": {"notificationType": 1, "purchaseToken": "token-1", "sku": "gems"}}"#
            )
            try await Self.record(
                f,
                id: "m-void",
                type: "VOIDED_PURCHASE",
                transaction: "GPA.1",
                environment: nil,
                store: "google",
                secondsAgo: 60,
                result: "partly_revoked"
            )
            // The other order's, by its ledger id and by its token, and an Apple row with the same id.
            try await Self.record(
                f,
                id: "m-other",
                type: "VOIDED_PURCHASE",
                transaction: "GPA.2",
                environment: nil,
                store: "google",
                secondsAgo: 50,
                result: "revoked"
            )
            let other = try await Self.record(
                f,
                id: "m-other-cancel",
                type: "ONE_TIME_PRODUCT_CANCELED",
                environment: nil,
                store: "google",
                secondsAgo: 40,
                result: "recorded"
            )
            try await Self.setGooglePayload(
                f,
                id: other,
                data: #"{"oneTimeProductNotification": {"notificationType": 2, "purchaseToken": "token-2"}}"#
            )
            try await Self.record(f, id: "a-same-id", type: "REFUND", transaction: "GPA.1", secondsAgo: 30)
            let url = try await f.loginRole(in: "receiptd_operator")

            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["show", "g1", "--json"], url).utf8))
                    as? [String: Any]
            )
            let listed = try #require(document["notifications"] as? [[String: Any]])
            #expect(listed.map { $0["notification_id"] as? String } == ["m-purchase", "m-void"])
            #expect(
                listed.last?["type"] as? String == "VOIDED_PURCHASE"
                    && listed.last?["result"] as? String == "partly_revoked"
                    && listed.last?["store"] as? String == "google"
            )
            let ledger = try #require((document["deliveries"] as? [[String: Any]])?.first)
            #expect(ledger["revoked_quantity"] as? Int == 2 && ledger["revocation_handled_quantity"] as? Int == 1)

            let text = try Self.run(["show", "g1"], url)
            let sections = text.components(separatedBy: "\n\n")
            let notifications = try #require(sections.first { $0.hasPrefix("Store notifications:") })
            #expect(
                notifications.contains("ONE_TIME_PRODUCT_PURCHASED") && notifications.contains("charge_enqueued")
                    && notifications.contains("partly_revoked") && !notifications.contains("REFUND")
                    && !notifications.contains("CANCELED"),
                "\(notifications)"
            )
            let deliveries = try #require(sections.first { $0.hasPrefix("Deliveries:") })
            #expect(
                deliveries.contains("UNITS REVOKED") && deliveries.contains("2 of 5, 1 handled"),
                "\(deliveries)"
            )

            let second = try Self.list(["show", "g2"], url, key: "notifications")
            #expect(second.map { $0["notification_id"] as? String } == ["m-other", "m-other-cancel"])

            // A ledger id shows the order it was delivered to; an unknown one is not found (exit 3).
            let byLedgerID = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["show", "GPA.1", "--json"], url).utf8))
                    as? [String: Any]
            )
            #expect((byLedgerID["order"] as? [String: Any])?["order_id"] as? String == "g1")
            #expect(
                (byLedgerID["notifications"] as? [[String: Any]])?.map { $0["notification_id"] as? String }
                    == ["m-purchase", "m-void"]
            )
            let unknown = try ReceiptdBinary.run(["show", "GPA.404", "--database-url", url])
            #expect(unknown.status == 3 && unknown.stderr.contains("no order GPA.404"), "\(unknown.stderr)")
        }
    }

    @Test func statusCountsPartialRevocationsUnhandledForOverTenMinutes() async throws {
        try await Fixture.with { f in
            try await RevocationHandOffTests.deliver(f, order: "g1", transaction: "GPA.1", quantity: 5, granted: true)
            try await RevocationHandOffTests.deliver(f, order: "g2", transaction: "GPA.2", quantity: 5, granted: true)
            try await RevocationHandOffTests.deliver(f, order: "g3", transaction: "GPA.3", quantity: 5, granted: true)
            try await f.connection.execute("UPDATE iap.deliveries SET store = 'google'")
            // GPA.1: refunded 20 minutes ago, unhandled. GPA.2: refunded 20 minutes ago and again just now.
            // GPA.3: refunded 20 minutes ago and handled.
            for (transaction, minutesAgo, units) in [
                ("GPA.1", 20, 2), ("GPA.2", 20, 1), ("GPA.2", 0, 1), ("GPA.3", 20, 3),
            ] {
                try await f.connection.execute(
                    """
                    INSERT INTO iap.google_partial_refunds (transaction_id, voided_at, voided_quantity, recorded_at)
                    VALUES ($1, now() - make_interval(mins => $2 + 1), $3, now() - make_interval(mins => $2))
                    """,
                    [transaction, minutesAgo, units]
                )
                try await RevocationHandOffTests.revokeUnits(f, transaction, units: units)
            }
            try await f.connection.execute("SELECT iap.mark_revocation_handled(ARRAY['GPA.3'])")
            let url = try await f.loginRole(in: "receiptd_operator")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["status", "--json"], url).utf8))
                    as? [String: Any]
            )
            #expect(document["revocations_unhandled_over_ten_minutes"] as? Int == 1)

            // A row revoked whole counts once, whatever its partial refunds.
            try await RevocationHandOffTests.revoke(f, "GPA.1", reason: "voided", secondsAgo: 900)
            let after = try #require(
                try JSONSerialization.jsonObject(with: Data(try Self.run(["status", "--json"], url).utf8))
                    as? [String: Any]
            )
            #expect(after["revocations_unhandled_over_ten_minutes"] as? Int == 1)
        }
    }

    /// The JSON list under `key` in the object `arguments` print.
    static func list(_ arguments: [String], _ url: String, key: String) throws -> [[String: Any]] {
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(try run(arguments + ["--json"], url).utf8)) as? [String: Any]
        )
        return try #require(object[key] as? [[String: Any]])
    }
}

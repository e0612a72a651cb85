import AsyncHTTPClient
import Foundation
import NIOCore
import ReceiptdCore
import Testing

/// What operators see and do about webhooks, through the binary as a shell runs it, with the `receiptd_operator`
/// role: `receiptd webhooks` (list, `replay`, `enable`), the webhooks of `status` and `show`, and
/// `receiptd fake-webhook-receiver`. Events are written in SQL, as the table's owner, in the states the daemons
/// leave them in.
@Suite struct WebhookCommandTests {
    /// Writes an event `secondsAgo` seconds ago in `state`; a delivered one was delivered then, a pending one is
    /// due in 5 minutes.
    static func insert(
        _ f: Fixture,
        _ id: String,
        type: String = "order.verified",
        order: String? = "o1",
        user: String? = "u1",
        state: String,
        attempts: Int = 1,
        lastStatus: Int? = nil,
        lastError: String? = nil,
        secondsAgo: Int = 0
    ) async throws {
        try await f.connection.execute(
            """
            INSERT INTO iap.webhook_events (id, type, order_id, user_id, payload, created_at, attempts, next_attempt_at,
                                            delivered_at, last_status, last_error, state)
            VALUES ($1, $2, $3, $4, jsonb_build_object('order_id', $3::text, 'user_id', $4::text, 'quantity', 2),
                    now() - make_interval(secs => $5), $6, now() + interval '5 minutes',
                    CASE WHEN $7 = 'delivered' THEN now() - make_interval(secs => $5) END, $8, $9, $7)
            """,
            [id, type, order, user, secondsAgo, attempts, state, lastStatus, lastError]
        )
    }

    /// Runs `receiptd arguments… --database-url URL` and requires exit status 0.
    static func run(_ arguments: [String], _ url: String) throws -> String {
        let run = try ReceiptdBinary.run(arguments + ["--database-url", url])
        #expect(run.status == 0, "\(arguments): \(run.stderr)")
        return run.stdout
    }

    /// The JSON document `arguments` print.
    static func json(_ arguments: [String], _ url: String) throws -> Any {
        try JSONSerialization.jsonObject(with: Data(try run(arguments + ["--json"], url).utf8))
    }

    /// Three events: delivered 3 hours ago, failed an hour ago (its error holds a CR LF), pending a minute ago.
    static func seedThree(_ f: Fixture) async throws {
        try await insert(f, "msg_old", state: "delivered", lastStatus: 204, secondsAgo: 10_800)
        try await insert(
            f,
            "msg_failed",
            type: "order.failed",
            order: "o2",
            user: "u2",
            state: "failed",
            attempts: 8,
            lastStatus: 500,
            lastError: "HTTP 500\r\nforged line",
            secondsAgo: 3_600
        )
        try await insert(
            f,
            "msg_new",
            type: "payment.unclaimed",
            order: nil,
            state: "pending",
            attempts: 2,
            secondsAgo: 60
        )
    }

    @Test func webhooksListsTheEndpointThenTheEventsNewestFirst() async throws {
        try await Fixture.with { f in
            try await Self.seedThree(f)
            let url = try await f.loginRole(in: "receiptd_operator")

            let lines = try Self.run(["webhooks"], url).split(separator: "\n", omittingEmptySubsequences: false)
                .map(String.init)
            #expect(
                lines.first
                    == "Webhook endpoint: not configured (no daemon runs with RECEIPTD_WEBHOOK_URL: changes write no events)",
                "\(lines)"
            )
            #expect(lines.count == 7 && lines[1].isEmpty && lines[6].isEmpty, "\(lines)")
            #expect(
                lines[2].split(separator: " ", omittingEmptySubsequences: true)
                    == [
                        "CREATED", "ID", "TYPE", "ORDER", "USER", "STATE", "ATTEMPTS", "LAST", "STATUS", "NEXT",
                        "ATTEMPT",
                        "DELIVERED", "LAST", "ERROR",
                    ]
            )
            #expect(
                lines[3].contains(" msg_new ") && lines[3].contains(" pending ")
                    && lines[3].contains(" payment.unclaimed ")
            )
            #expect(lines[4].contains(" msg_failed ") && lines[4].hasSuffix("HTTP 500\\r\\nforged line"), "\(lines[4])")
            #expect(lines[5].contains(" msg_old ") && lines[5].contains(" delivered "))

            let failed = try Self.run(["webhooks", "--state", "failed"], url)
            #expect(failed.contains("msg_failed") && !failed.contains("msg_new") && !failed.contains("msg_old"))
            let one = try Self.run(["webhooks", "--limit", "1"], url)
            #expect(one.contains(" msg_new ") && !one.contains("msg_failed") && !one.contains("msg_old"))
            let day = try Self.run(["webhooks", "--since", "2020-01-01T00:00:00Z", "--state", "delivered"], url)
            #expect(day.contains(" msg_old ") && !day.contains("msg_new"))
            let recent = try Self.run(["webhooks", "--since", "30s"], url)
            #expect(recent.hasSuffix("\n\nNo webhook events match.\n"), "\(recent)")
        }
    }

    @Test func webhooksJSONHasEveryColumnAndThePayload() async throws {
        try await Fixture.with { f in
            try await Self.seedThree(f)
            let url = try await f.loginRole(in: "receiptd_operator")

            let events = try #require(try Self.json(["webhooks"], url) as? [[String: Any]])
            #expect(events.map { $0["id"] as? String } == ["msg_new", "msg_failed", "msg_old"])
            let keys: Set<String> = [
                "id", "type", "order_id", "user_id", "state", "attempts", "last_status", "last_error", "created_at",
                "next_attempt_at", "delivered_at", "payload",
            ]
            // A key whose value is null is left out, as in every command's JSON.
            #expect(events.allSatisfy { Set($0.keys).isSubset(of: keys) }, "\(events.first?.keys.sorted() ?? [])")
            #expect(Set(events[1].keys) == keys.subtracting(["next_attempt_at", "delivered_at"]))
            let new = events[0]
            let failed = events[1]
            let old = events[2]
            #expect(new["order_id"] == nil && new["attempts"] as? Int == 2 && new["next_attempt_at"] is String)
            #expect(new["delivered_at"] == nil && new["state"] as? String == "pending")
            #expect(
                failed["last_error"] as? String == "HTTP 500\r\nforged line" && failed["last_status"] as? Int == 500
                    && failed["next_attempt_at"] == nil && failed["type"] as? String == "order.failed"
            )
            let payload = try #require(failed["payload"] as? [String: Any])
            #expect(payload["order_id"] as? String == "o2" && payload["quantity"] as? Int == 2)
            #expect((old["delivered_at"] as? String)?.hasSuffix("Z") == true && old["next_attempt_at"] == nil)

            let limited = try #require(
                try Self.json(["webhooks", "--limit", "2", "--since", "2h"], url) as? [[String: Any]]
            )
            #expect(limited.map { $0["id"] as? String } == ["msg_new", "msg_failed"])
            let pending = try #require(try Self.json(["webhooks", "--state", "pending"], url) as? [[String: Any]])
            #expect(pending.map { $0["id"] as? String } == ["msg_new"])

            for usage in [
                ["webhooks", "--state", "lost"], ["webhooks", "--limit", "0"], ["webhooks", "--since", "5 fortnights"],
            ] {
                let run = try ReceiptdBinary.run(usage + ["--database-url", url])
                #expect(run.status == 2 && run.stdout.isEmpty && !run.stderr.isEmpty, "\(usage): \(run.stderr)")
            }
        }
    }

    @Test func aDisabledEndpointIsShownFirstWithTheWayOut() async throws {
        try await Fixture.with { f in
            try await f.configureWebhooks()
            let url = try await f.loginRole(in: "receiptd_operator")
            #expect(
                try Self.run(["webhooks"], url)
                    == "Webhook endpoint: configured\n\nNo webhook events match.\n"
            )
            try await f.connection.execute("SELECT iap.disable_webhooks($1)", ["msg_gone"])
            let first = try #require(try Self.run(["webhooks"], url).split(separator: "\n").first.map(String.init))
            #expect(first.hasPrefix("Webhook endpoint: configured; DISABLED since 20"), "\(first)")
            #expect(
                first.hasSuffix(
                    "Z (410 Gone to msg_gone): nothing is sent and every event waits; run `receiptd webhooks enable` once the endpoint is back"
                ),
                "\(first)"
            )
        }
    }

    @Test func replayMakesEventsPendingAgainWithTheSameID() async throws {
        try await Fixture.with { f in
            try await Self.seedThree(f)
            try await f.connection.execute(
                "UPDATE iap.webhook_events SET locked_by = 'gone:1:x', locked_until = now() + interval '1 minute' WHERE id = 'msg_old'"
            )
            let url = try await f.loginRole(in: "receiptd_operator")

            let text = try Self.run(["webhooks", "replay", "msg_failed", "msg_old", "msg_failed"], url)
            #expect(
                text
                    == "Replayed msg_failed: pending, due now, attempts 0.\nReplayed msg_old: pending, due now, attempts 0.\n"
            )
            for id in ["msg_failed", "msg_old"] {
                let row = try await f.row(
                    """
                    SELECT state, attempts, delivered_at IS NULL AS undelivered, next_attempt_at <= now() AS due,
                           locked_by IS NULL AND locked_until IS NULL AS unleased
                    FROM iap.webhook_events WHERE id = $1
                    """,
                    [id]
                )
                #expect(
                    row["state"] == "pending" && row["attempts"] == "0" && row["undelivered"] == "t"
                        && row["due"] == "t" && row["unleased"] == "t",
                    "\(id)"
                )
            }
            // The same ids: no new event was written.
            #expect(try await f.value("SELECT count(*) FROM iap.webhook_events") == "3")

            let json = try #require(try Self.json(["webhooks", "replay", "msg_new"], url) as? [String: Any])
            #expect(json["replayed"] as? [String] == ["msg_new"] && json["not_found"] as? [String] == [])
        }
    }

    @Test func replayOfUnknownIDsExitsThreeNamingThemAndBadIDsExitTwo() async throws {
        try await Fixture.with { f in
            try await Self.seedThree(f)
            let url = try await f.loginRole(in: "receiptd_operator")

            let partly = try ReceiptdBinary.run([
                "webhooks", "replay", "msg_nope", "msg_failed", "msg_gone", "--database-url", url,
            ])
            #expect(partly.status == 3, "\(partly.stderr)")
            #expect(
                partly.stderr == "receiptd webhooks replay: no webhook event msg_nope, msg_gone\n",
                "\(partly.stderr)"
            )
            #expect(partly.stdout == "Replayed msg_failed: pending, due now, attempts 0.\n")
            #expect(try await f.value("SELECT state FROM iap.webhook_events WHERE id = 'msg_failed'") == "pending")

            let json = try ReceiptdBinary.run(["webhooks", "replay", "msg_nope", "--json", "--database-url", url])
            #expect(json.status == 3 && json.stderr.contains("msg_nope"))
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
            )
            #expect(document["replayed"] as? [String] == [] && document["not_found"] as? [String] == ["msg_nope"])

            try await f.connection.execute("UPDATE iap.webhook_events SET state = 'failed' WHERE id = 'msg_failed'")
            for ids in [
                [String](), ["nope"], ["msg_"], ["msg_a'b"], ["msg_ok", "msg_x;DROP"],
                ["msg_" + String(repeating: "a", count: 61)],
                ["msg_failed", "msg_\u{1B}[2J"],
            ] {
                let run = try ReceiptdBinary.run(["webhooks", "replay"] + ids + ["--database-url", url])
                #expect(run.status == 2 && run.stdout.isEmpty && !run.stderr.isEmpty, "\(ids): \(run.stderr)")
                #expect(!run.stderr.contains("\u{1B}"))
            }
            // Refused before any SQL: the valid id given with a bad one was not replayed.
            #expect(try await f.value("SELECT state FROM iap.webhook_events WHERE id = 'msg_failed'") == "failed")
            let longest = "msg_" + String(repeating: "a", count: 60)
            let unknown = try ReceiptdBinary.run(["webhooks", "replay", longest, "--database-url", url])
            #expect(unknown.status == 3, "\(unknown.stderr)")
        }
    }

    @Test func enableClearsTheDisableAndCountsThePendingEvents() async throws {
        try await Fixture.with { f in
            try await f.configureWebhooks()
            try await Self.seedThree(f)
            try await Self.insert(f, "msg_later", order: "o3", state: "pending")
            try await f.connection.execute("SELECT iap.disable_webhooks($1)", ["msg_new"])
            let url = try await f.loginRole(in: "receiptd_operator")

            let text = try Self.run(["webhooks", "enable"], url)
            #expect(text.hasPrefix("Webhooks enabled: the endpoint had been disabled since 20"), "\(text)")
            #expect(text.hasSuffix("Z (410 Gone to msg_new). Events pending: 2, all due now.\n"), "\(text)")
            let endpoint = try await f.row(
                "SELECT disabled_at IS NULL AS cleared, disabled_event, enabled_by FROM iap.webhook_endpoint"
            )
            #expect(endpoint["cleared"] == "t" && endpoint["disabled_event"] == nil)
            let name = ProcessInfo.processInfo.userName
            let enabledBy = try #require(endpoint["enabled_by"])
            #expect(enabledBy == (name.isEmpty ? enabledBy : name) && !enabledBy.isEmpty)
            #expect(
                try await f.value(
                    "SELECT count(*) FROM iap.webhook_events WHERE state = 'pending' AND next_attempt_at <= now()"
                )
                    == "2"
            )

            let again = try #require(try Self.json(["webhooks", "enable"], url) as? [String: Any])
            #expect(
                again["was_disabled"] as? Bool == false && again["pending"] as? Int == 2
                    && again["configured"] as? Bool == true && again["disabled_at"] == nil
            )
            try await f.configureWebhooks(false)
            #expect(
                try Self.run(["webhooks", "enable"], url)
                    == "Webhooks were not disabled; nothing changed. Events pending: 2, all due now.\n"
                    + "No daemon runs with RECEIPTD_WEBHOOK_URL: nothing is sent until one does.\n"
            )
        }
    }

    @Test func statusAndShowShowTheWebhooks() async throws {
        try await Fixture.with { f in
            let url = try await f.loginRole(in: "receiptd_operator")
            let quiet = try Self.run(["status"], url)
            #expect(
                quiet.contains(
                    "\n\nWebhooks: endpoint not configured; 0 pending, 0 failed; delivered in the last hour: 0\n\n"
                ),
                "\(quiet)"
            )
            try await f.enqueue("o1", receipt: Receipts.paying("1"))
            try await f.configureWebhooks()
            try await Self.insert(f, "msg_sent", state: "delivered", lastStatus: 204, secondsAgo: 600)
            try await Self.insert(
                f,
                "msg_broken",
                type: "order.failed",
                state: "failed",
                attempts: 8,
                lastStatus: 500,
                secondsAgo: 300
            )
            try await Self.insert(f, "msg_waiting", order: "o2", state: "pending", secondsAgo: 7_300)
            try await f.connection.execute("SELECT iap.disable_webhooks($1)", ["msg_waiting"])

            let text = try Self.run(["status"], url)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix("Webhooks: ") }.map(String.init))
            #expect(
                line.hasPrefix("Webhooks: endpoint configured, DISABLED since 20")
                    && line.contains(
                        "Z (410 Gone to msg_waiting; every event waits: run `receiptd webhooks enable` once the endpoint is back); 1 pending (the oldest written 2h "
                    )
                    && line.hasSuffix(
                        " ago), 1 failed (see `receiptd webhooks --state failed`; `receiptd webhooks replay ID…`); delivered in the last hour: 1"
                    ),
                "\(line)"
            )
            let status = try #require(try Self.json(["status"], url) as? [String: Any])
            let webhooks = try #require(status["webhooks"] as? [String: Any])
            #expect(
                webhooks["pending"] as? Int == 1 && webhooks["failed"] as? Int == 1
                    && webhooks["delivered_last_hour"] as? Int == 1
                    && (webhooks["oldest_pending_seconds"] as? Int ?? 0) >= 7_300,
                "\(webhooks)"
            )
            let endpoint = try #require(webhooks["endpoint"] as? [String: Any])
            #expect(
                endpoint["configured"] as? Bool == true && endpoint["disabled_event"] as? String == "msg_waiting"
                    && endpoint["disabled_at"] is String
            )

            let show = try Self.run(["show", "o1"], url)
            let section = try #require(show.components(separatedBy: "\n\nWebhook events:\n").last)
            let rows = section.split(separator: "\n").map(String.init)
            #expect(rows.count == 3 && rows.first?.hasPrefix("CREATED ") == true, "\(show)")
            #expect(
                rows[1].contains(" order.verified ") && rows[1].contains(" delivered ") && rows[1].contains(" msg_sent")
            )
            #expect(
                rows[2].contains(" order.failed ") && rows[2].contains(" failed ") && rows[2].contains(" msg_broken")
            )
            #expect(!show.contains("msg_waiting"))
            let detail = try #require(try Self.json(["show", "o1"], url) as? [String: Any])
            let events = try #require(detail["webhook_events"] as? [[String: Any]])
            #expect(events.map { $0["id"] as? String } == ["msg_sent", "msg_broken"])
            #expect((events.first?["payload"] as? [String: Any])?["order_id"] as? String == "o1")

            try await f.enqueue("o9", receipt: Receipts.paying("9"))
            #expect(try Self.run(["show", "o9"], url).hasSuffix("\n\nWebhook events: none\n"))
        }
    }

    /// `receiptd fake-webhook-receiver` as the demo runs it: prints its URL, takes a request signed with the secret,
    /// refuses one signed with another (401), lists both at `GET /fake/received`, and stops on SIGTERM.
    @Test func fakeWebhookReceiverChecksSignaturesUntilSIGTERM() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let secretFile = folder.appendingPathComponent("secret")
        try Data("\(Fixture.webhookSecret)\n".utf8).write(to: secretFile)
        let output = folder.appendingPathComponent("out")
        let errors = folder.appendingPathComponent("err")
        try Data().write(to: output)
        try Data().write(to: errors)

        let process = Process()
        process.executableURL = try ReceiptdBinary.location()
        process.arguments = ["fake-webhook-receiver", "--port", "0", "--secret-file", secretFile.path]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = try FileHandle(forWritingTo: errors)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        var url: String?
        let deadline = ContinuousClock.now + .seconds(30)
        while url == nil && ContinuousClock.now < deadline && process.isRunning {
            url = String(decoding: try Data(contentsOf: output), as: UTF8.self).split(separator: "\n").first
                .map(String.init)
            if url == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        let stderr = String(decoding: try Data(contentsOf: errors), as: UTF8.self)
        let receiverURL = try #require(url, "\(stderr)")
        #expect(receiverURL.hasPrefix("http://127.0.0.1:") && receiverURL.hasSuffix("/webhooks"))

        let client = WebhookSender.makeClient(concurrency: 2)
        let body = #"{"type":"order.verified","timestamp":"2026-11-26T00:00:00.000000Z","data":{"order_id":"o1"}}"#
        let event = OwedWebhookEvent(id: "msg_cli1", type: .orderVerified, orderID: "o1", body: body, attempts: 1)
        let signed = WebhookSender(
            client: client,
            url: receiverURL,
            secrets: try WebhookSecrets(fileText: Fixture.webhookSecret),
            timeout: .seconds(10)
        )
        let forged = WebhookSender(
            client: client,
            url: receiverURL,
            secrets: try WebhookSecrets(fileText: "whsec_" + Data(repeating: 7, count: 24).base64EncodedString()),
            timeout: .seconds(10)
        )
        #expect(await signed.send(event).status == 204)
        #expect(await forged.send(event).status == 401)

        let base = String(receiverURL.dropLast("/webhooks".count))
        let response = try await client.execute(HTTPClientRequest(url: base + "/fake/received"), timeout: .seconds(10))
        let listed = try await response.body.collect(upTo: 1 << 20)
        try await client.shutdown()
        let text = String(buffer: listed)
        let document: Any = try JSONSerialization.jsonObject(with: Data(text.utf8))
        let received: [[String: Any]] = try #require(document as? [[String: Any]])
        let ids: [String?] = received.map { $0["id"] as? String }
        #expect(ids == ["msg_cli1", "msg_cli1"])
        let first: [String: Any] = received.first ?? [:]
        let last: [String: Any] = received.last ?? [:]
        #expect(first["refusal"] == nil && first["body"] as? String == body && first["status"] as? Int == 204)
        #expect(last["refusal"] is String && last["status"] as? Int == 401)

        process.terminate()
        let stop = ContinuousClock.now + .seconds(15)
        while process.isRunning && ContinuousClock.now < stop { try await Task.sleep(for: .milliseconds(50)) }
        #expect(!process.isRunning)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0 && process.terminationReason == .exit)
        let printed = String(decoding: try Data(contentsOf: output), as: UTF8.self)
        #expect(printed.hasSuffix("Received 2 request(s): 1 verified, 1 refused, 1 delivered.\n"), "\(printed)")
    }

    @Test func fakeWebhookReceiverRefusesAMissingOrMalformedSecretFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("receiver-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let malformed = folder.appendingPathComponent("secret")
        try Data("whsec_not*base64-secret-text\n".utf8).write(to: malformed)
        for path in [malformed.path, folder.appendingPathComponent("missing").path] {
            let run = try ReceiptdBinary.run(["fake-webhook-receiver", "--port", "0", "--secret-file", path])
            #expect(run.status == 78 && run.stderr.contains("--secret-file") && run.stdout.isEmpty, "\(run.stderr)")
            #expect(!run.stderr.contains("not*base64"))
        }
        let none = try ReceiptdBinary.run(["fake-webhook-receiver"])
        #expect(none.status == 2 && none.stderr.contains("--secret-file"), "\(none.stderr)")
    }
}

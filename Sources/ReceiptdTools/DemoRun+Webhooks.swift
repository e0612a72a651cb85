import FakeAppStore
import Foundation
import ReceiptdCore

extension DemoRun {
    /// The demo daemon's webhooks: to the stand-in receiver at `url`, signed with `secrets`; retries after a third
    /// of a second, then more, instead of 5 s and minutes, so that the demo's retried event arrives at once.
    static func webhookConfiguration(url: String, secrets: WebhookSecrets) -> WebhookConfiguration {
        var webhooks = WebhookConfiguration(url: url, secrets: secrets)
        webhooks.retryDelays = [.milliseconds(300), .milliseconds(600), .seconds(1), .seconds(2), .seconds(4)]
        webhooks.pollInterval = .milliseconds(200)
        return webhooks
    }

    /// Waits until every event of `iap.webhook_events` is delivered; returns how many there are.
    @discardableResult
    func waitForWebhooks(on connection: PostgresConnection, timeout: Duration = .seconds(30)) async throws -> Int {
        let deadline = ContinuousClock.now + timeout
        while true {
            let row = try await connection.execute(
                "SELECT count(*) AS n, count(*) FILTER (WHERE state <> 'delivered') AS open FROM iap.webhook_events"
            ).first
            let (events, open) = (try row?.int("n") ?? 0, try row?.int("open") ?? 0)
            if open == 0 { return events }
            guard ContinuousClock.now < deadline else {
                throw ToolError("demo: \(open) of \(events) webhook events not delivered after \(timeout)")
            }
            try await Task.sleep(for: .milliseconds(100))
        }
    }

    /// Before the trusted player's step: once the events so far are delivered, the receiver answers 503 to its
    /// next two calls, so that the step's first event (its provisional `order.verified`) is sent three times.
    func failTheReceiverTwice(_ receiver: WebhookReceiverStandIn, on connection: PostgresConnection) async throws {
        let delivered = try await waitForWebhooks(on: connection)
        receiver.script([.status(503), .status(503)])
        say("Webhooks: \(delivered) event(s) delivered so far; the game server's endpoint answers 503 to the next two")
    }

    /// After the last step: waits for every event to be delivered and says how the retried one fared.
    func finishWebhooks(_ receiver: WebhookReceiverStandIn, on connection: PostgresConnection) async throws {
        let delivered = try await waitForWebhooks(on: connection)
        let retried = try await connection.execute(
            "SELECT id, type, coalesce(order_id, '-') AS order_id, attempts FROM iap.webhook_events WHERE attempts > 1 ORDER BY seq"
        ).namedRows
        let lines = try retried.map { row in
            let answers = receiver.received().filter { $0.id == row["id"] }.map { $0.status.map(String.init) ?? "-" }
            return
                "\(try row.string("type")) of \(try row.string("order_id")) answered \(answers.joined(separator: ", "))"
        }
        say(
            "Webhooks: all \(delivered) event(s) delivered to \(receiver.url), each signature verified"
                + (lines.isEmpty ? "" : "; retried: " + lines.joined(separator: "; "))
        )
    }

    /// The events as `iap.webhook_events` ended, and what the receiver took.
    func webhookReport(
        from connection: PostgresConnection,
        receiver: WebhookReceiverStandIn
    ) async throws -> DemoWebhooks {
        let events = try await connection.execute(
            """
            SELECT id, type, state, order_id, attempts, coalesce((payload ->> 'provisional')::boolean, false) AS provisional
            FROM iap.webhook_events ORDER BY seq
            """
        ).namedRows.map { row in
            DemoWebhooks.Event(
                id: try row.string("id"),
                type: try row.string("type"),
                state: try row.string("state"),
                orderID: row["order_id"],
                attempts: try row.int("attempts"),
                provisional: try row.bool("provisional")
            )
        }
        return DemoWebhooks(url: receiver.url, events: events, received: receiver.received())
    }
}

import FakeAppStore
import Foundation
import Logging
import ReceiptdCore

/// The chaos run's webhooks: a stand-in receiver in the run's process that every daemon sends to while daemons are
/// SIGKILLed and PostgreSQL restarted, and the checks at the end: every event written delivered, each received at
/// least once and every request verified, and each order's events first arriving in the order they were written.
struct ChaosWebhooks {
    /// What the checks found.
    struct Findings {
        /// Events written.
        var events = 0
        /// Requests beyond the first taken (2xx) of their id: sent again after a kill or a restart.
        var redeliveries = 0
        /// Every broken rule, one line each.
        var violations: [String] = []
    }

    let receiver: WebhookReceiverStandIn
    private let secretFile: WebhookSecretFile

    /// Writes a fresh secret and starts a receiver trusting it.
    static func start() async throws -> ChaosWebhooks {
        let secretFile = try WebhookSecretFile()
        let receiver = WebhookReceiverStandIn(
            secrets: secretFile.secrets,
            logger: Logger(label: "fake-webhook-receiver", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        do {
            _ = try await receiver.start()
        } catch {
            secretFile.remove()
            throw error
        }
        return ChaosWebhooks(receiver: receiver, secretFile: secretFile)
    }

    /// `RECEIPTD_WEBHOOK_URL` and `RECEIPTD_WEBHOOK_SECRET_FILE` for the daemons.
    var environment: [String: String] { secretFile.environment(url: receiver.url) }

    /// Stops the receiver and deletes the secret.
    func stop() async {
        try? await receiver.shutdown()
        secretFile.remove()
    }

    /// Events not yet delivered (`pending`, or leased by a daemon that was killed).
    static func undelivered(on connection: PostgresConnection) async throws -> Int {
        try await connection.execute("SELECT count(*) AS n FROM iap.webhook_events WHERE state = 'pending'").first?
            .int("n") ?? 0
    }

    /// Ends the webhook leases the SIGKILLed daemons `pids` held (`locked_by` is `host:pid:start`): the clock
    /// fast-forwarded for the dead, once everything else has settled, as the webhook lease is a fixed 60 s and the
    /// run would otherwise wait that long after its last kill. Their events are then claimed and sent again, as
    /// after a real lapse. Returns how many leases ended.
    static func lapseLeases(of pids: [pid_t], on connection: PostgresConnection) async throws -> Int {
        guard !pids.isEmpty else { return 0 }
        return try await connection.execute(
            """
            UPDATE iap.webhook_events SET locked_until = now() - interval '1 second'
            WHERE state = 'pending' AND locked_until > now()
              AND split_part(locked_by, ':', 2) = ANY (string_to_array($1, ','))
            RETURNING id
            """,
            [pids.map(String.init).joined(separator: ",")]
        ).rows.count
    }

    /// Compares `iap.webhook_events` with what the receiver took.
    func check(on connection: PostgresConnection) async throws -> Findings {
        var findings = Findings()
        let events = try await connection.execute(
            "SELECT id, type, order_id, state FROM iap.webhook_events ORDER BY seq"
        ).namedRows
        findings.events = events.count
        let states = Dictionary(grouping: events, by: { $0["state"] ?? "" }).mapValues(\.count)
        for (state, count) in states.sorted(by: { $0.key < $1.key }) where state != "delivered" {
            // A run that ended before its events were delivered ended early: a violation too.
            findings.violations.append("\(count) webhook events \(state) when the run ended")
        }
        let received = receiver.received()
        let refused = received.filter { !$0.verified }
        if let first = refused.first {
            findings.violations.append(
                "\(refused.count) webhook requests failed the receiver's checks, e.g. \(first.id): \(first.refusal ?? "")"
            )
        }
        let taken = Dictionary(grouping: received.filter { $0.verified && ($0.status ?? 0) / 100 == 2 }, by: \.id)
        findings.redeliveries = taken.values.reduce(0) { $0 + $1.count - 1 }
        let missing = try events.filter { taken[try $0.string("id")] == nil }
        if let first = missing.first {
            findings.violations.append(
                "\(missing.count) webhook events never taken by the receiver, e.g. \(first["id"] ?? "") (\(first["type"] ?? ""))"
            )
        }
        // Each order's events must first arrive in write order: a later one waits while an earlier one is pending.
        var firstArrival: [String: Int] = [:]
        for (index, request) in received.enumerated() where firstArrival[request.id] == nil {
            firstArrival[request.id] = index
        }
        var previous: [String: (id: String, arrival: Int)] = [:]
        var outOfOrder: [String] = []
        for event in events {
            guard let order = event["order_id"], let id = event["id"], let arrival = firstArrival[id] else { continue }
            if let earlier = previous[order], earlier.arrival > arrival {
                outOfOrder.append("\(order): \(id) arrived before the earlier \(earlier.id)")
            }
            previous[order] = (id, arrival)
        }
        if !outOfOrder.isEmpty {
            findings.violations.append(
                "\(outOfOrder.count) webhook events arrived before an earlier event of their order, e.g. \(outOfOrder[0])"
            )
        }
        // Every order with a ledger row was told: a settle that delivered wrote its order.verified.
        let untold = try await connection.execute(
            """
            SELECT count(*) AS n, min(order_id) AS example FROM (
                SELECT order_id FROM iap.deliveries
                EXCEPT SELECT order_id FROM iap.webhook_events WHERE type = 'order.verified') untold
            """
        ).first
        if let count = try untold?.int("n"), count > 0 {
            findings.violations.append(
                "\(count) orders with deliveries have no order.verified event, e.g. \(untold?["example"] ?? "")"
            )
        }
        return findings
    }
}

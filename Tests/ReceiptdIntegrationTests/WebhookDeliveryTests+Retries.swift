import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 22's retries: failures retried on the schedule and delivered once, `Retry-After` honoured, a receiver that
/// never answers given up on at the timeout, and `410 Gone` disabling the endpoint until an operator enables it.
extension WebhookDeliveryTests {
    /// Seconds between two requests the receiver took.
    static func gap(_ earlier: ReceivedWebhook, _ later: ReceivedWebhook) -> Double {
        later.receivedAt.timeIntervalSince(earlier.receivedAt)
    }

    /// Every request signed for the moment it was sent: its timestamp within a few seconds of its arrival.
    static func expectSignedAtArrival(_ requests: [ReceivedWebhook], sourceLocation: SourceLocation = #_sourceLocation)
    {
        for request in requests {
            #expect(request.verified, "\(request.refusal ?? "")", sourceLocation: sourceLocation)
            let sent = Double(request.timestamp) ?? 0
            #expect(abs(sent - request.receivedAt.timeIntervalSince1970) < 3, sourceLocation: sourceLocation)
        }
    }

    @Test func fiveHundredsThenTwoHundredAreRetriedOnTheScheduleAndDeliveredOnce() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            receiver.script([.status(500), .status(500), .status(200)])
            let settings = try f.deliverySettings(receiver) {
                $0.retryDelays = [.milliseconds(300), .milliseconds(1_200)] + Array(repeating: .seconds(60), count: 5)
            }
            let id = try await f.writeWebhookEvent()
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await f.webhookEvent(id)["state"] == "delivered" }
            }
            let received = receiver.received()
            #expect(received.map(\.id) == [id, id, id])
            #expect(received.map(\.status) == [500, 500, 200])
            Self.expectSignedAtArrival(received)
            #expect(receiver.delivered().map(\.id) == [id])
            // Each wait at least the schedule's, less its 10 % jitter: 300 ms, then 1.2 s.
            if received.count == 3 {
                #expect(Self.gap(received[0], received[1]) >= 0.27, "\(Self.gap(received[0], received[1]))")
                #expect(Self.gap(received[1], received[2]) >= 1.08, "\(Self.gap(received[1], received[2]))")
                #expect(received.map(\.body).allSatisfy { $0 == received[0].body })
            }
            let row = try await f.webhookEvent(id)
            #expect(row["attempts"] == "3" && row["last_status"] == "200" && row["last_error"] == nil)
            #expect(row["locked_by"] == nil && row["delivered_at"] != nil)
            // The third attempt came no earlier than the second failure's next_attempt_at (kept once delivered).
            let due = Double(row["next_attempt_at"] ?? "") ?? .infinity
            #expect(received.last.map { $0.receivedAt.timeIntervalSince1970 >= due - 0.05 } == true)
        }
    }

    @Test func aRetryAfterLongerThanTheScheduleIsHonoured() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            receiver.script([.status(503, retryAfter: "2")])
            let settings = try f.deliverySettings(receiver) {
                $0.retryDelays = Array(repeating: .milliseconds(200), count: 7)
            }
            let id = try await f.writeWebhookEvent()
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil { try await f.webhookEvent(id)["last_status"] == "503" }
                let first = try #require(receiver.received().first)
                let row = try await f.webhookEvent(id)
                #expect(row["state"] == "pending" && row["attempts"] == "1")
                #expect(row["last_error"]?.contains("HTTP 503") == true)
                // Due 2 s after the attempt (not the schedule's 200 ms), and not parked for long either.
                let wait = (Double(row["next_attempt_at"] ?? "") ?? 0) - first.receivedAt.timeIntervalSince1970
                #expect(wait >= 1.95 && wait < 5, "\(wait)")
                try await f.waitUntil { try await f.webhookEvent(id)["state"] == "delivered" }
            }
            let received = receiver.received()
            #expect(received.map(\.status) == [503, 204])
            if received.count == 2 { #expect(Self.gap(received[0], received[1]) >= 1.95) }
            #expect(try await f.webhookEvent(id)["attempts"] == "2")
        }
    }

    @Test func aReceiverThatNeverAnswersIsGivenUpOnAtTheTimeoutAndRetried() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            receiver.script([.hang])
            let lines = CapturingLogHandler.Lines()
            let settings = try f.deliverySettings(receiver) { $0.timeout = .seconds(1) }
            let id = try await f.writeWebhookEvent()
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil { try await f.webhookEvent(id)["state"] == "delivered" }
            }
            let received = receiver.received()
            #expect(received.map(\.id) == [id, id])
            #expect(received.map(\.status) == [nil, 204])
            // The timeout (1 s) and then the first wait of the schedule (300 ms less jitter).
            if received.count == 2 { #expect(Self.gap(received[0], received[1]) >= 1.25) }
            #expect(try await f.webhookEvent(id)["attempts"] == "2")
            #expect(lines.all.contains { $0.contains("webhook not taken") && $0.contains("no answer within 1") })
        }
    }

    @Test func goneDisablesTheEndpointUntilAnOperatorEnablesIt() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            receiver.script([.status(410)])
            let lines = CapturingLogHandler.Lines()
            let settings = try f.deliverySettings(receiver)
            let first = try await f.writeWebhookEvent(order: "o1")
            try await f.withDaemons(settings: settings, logger: CapturingLogHandler.logger(into: lines)) { _ in
                try await f.waitUntil { try await f.webhookEvent(first)["last_status"] == "410" }
                let endpoint = try await f.row(
                    "SELECT disabled_at IS NOT NULL AS disabled, disabled_event FROM iap.webhook_endpoint"
                )
                #expect(endpoint["disabled"] == "t" && endpoint["disabled_event"] == first)
                // Nothing more is sent while changes keep writing events; every one waits, pending.
                var later: [String] = []
                later.append(try await f.writeWebhookEvent(order: "o2"))
                later.append(try await f.writeWebhookEvent(order: "o1"))
                later.append(try await f.writeWebhookEvent(order: nil, type: "payment.unclaimed"))
                try await Task.sleep(for: .seconds(1))
                #expect(receiver.received().count == 1)
                for id in [first] + later {
                    #expect(try await f.webhookEvent(id)["state"] == "pending")
                }
                #expect(
                    lines.all.filter { $0.hasPrefix("critical") && $0.contains("410 Gone") }.count == 1,
                    "\(lines.all.filter { $0.contains("410") })"
                )

                #expect(try await f.value("SELECT iap.enable_webhooks('test')") == "4")
                try await f.waitUntil {
                    try await f.value("SELECT count(*) FROM iap.webhook_events WHERE state = 'delivered'") == "4"
                }
                let endpointAfter = try await f.row("SELECT disabled_at, enabled_by FROM iap.webhook_endpoint")
                #expect(endpointAfter["disabled_at"] == nil && endpointAfter["enabled_by"] == "test")
                let delivered = receiver.delivered().map(\.id)
                #expect(Set(delivered) == Set([first] + later) && delivered.count == 4)
                // o1's events in the order they were written.
                #expect(delivered.filter { [first, later[1]].contains($0) } == [first, later[1]])
            }
            #expect(receiver.received().count == 5)
            #expect(try await f.webhookEvent(first)["attempts"] == "2")
        }
    }
}

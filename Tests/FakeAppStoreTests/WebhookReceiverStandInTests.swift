import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The stand-in webhook receiver over HTTP: the Standard Webhooks checks, the shared script, answers scripted for
/// one webhook-id, and slow answers.
@Suite struct WebhookReceiverStandInTests {
    static let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"

    /// Starts a receiver trusting the test secret, runs `body`, shuts it down.
    func withReceiver(_ body: (WebhookReceiverStandIn) async throws -> Void) async throws {
        let receiver = WebhookReceiverStandIn(secrets: try WebhookSecrets(fileText: Self.secret))
        _ = try await receiver.start()
        do {
            try await body(receiver)
        } catch {
            try? await receiver.shutdown()
            throw error
        }
        try await receiver.shutdown()
    }

    /// POSTs `body` as webhook `id`, signed now with the test secret (or `signature`); returns the status.
    func post(
        to receiver: WebhookReceiverStandIn,
        id: String,
        body: String = #"{"type":"order.verified","data":{}}"#,
        signature: String? = nil
    ) async throws -> (status: Int, retryAfter: String?) {
        let timestamp = Int64(Date().timeIntervalSince1970)
        var request = URLRequest(url: URL(string: receiver.url)!)
        request.httpMethod = "POST"
        request.httpBody = Data(body.utf8)
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(id, forHTTPHeaderField: "webhook-id")
        request.setValue(String(timestamp), forHTTPHeaderField: "webhook-timestamp")
        let signed = try WebhookSecret(Self.secret).signature(id: id, timestamp: timestamp, body: Array(body.utf8))
        request.setValue(signature ?? signed, forHTTPHeaderField: "webhook-signature")
        let (_, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        return (http.statusCode, http.value(forHTTPHeaderField: "Retry-After"))
    }

    @Test func aVerifiedRequestIsTakenOnceAndAForgedOneRefused() async throws {
        try await withReceiver { receiver in
            var statuses: [Int] = []
            statuses.append(try await post(to: receiver, id: "msg_1").status)
            statuses.append(try await post(to: receiver, id: "msg_1").status)
            statuses.append(try await post(to: receiver, id: "msg_2", signature: "v1,AAAA").status)
            #expect(statuses == [204, 204, 401])
            let received = receiver.received()
            #expect(received.map(\.id) == ["msg_1", "msg_1", "msg_2"])
            #expect(received.map(\.duplicate) == [false, true, false])
            #expect(received.map(\.verified) == [true, true, false])
            #expect(receiver.delivered().map(\.id) == ["msg_1"])
        }
    }

    @Test func answersScriptedForAnIDComeBeforeTheSharedScript() async throws {
        try await withReceiver { receiver in
            receiver.script([.status(503, retryAfter: "7")])
            receiver.script([.status(500), .status(410)], for: "msg_a")
            #expect(try await post(to: receiver, id: "msg_a").status == 500)
            let shared = try await post(to: receiver, id: "msg_b")
            #expect(shared.status == 503 && shared.retryAfter == "7")
            #expect(try await post(to: receiver, id: "msg_a").status == 410)
            #expect(try await post(to: receiver, id: "msg_a").status == 204)
            #expect(receiver.received().map(\.status) == [500, 503, 410, 204])
        }
    }

    @Test func aDelayedAnswerComesAfterItsDelayAndCanBeScriptedOverHTTP() async throws {
        try await withReceiver { receiver in
            var script = URLRequest(
                url: URL(string: receiver.url.replacingOccurrences(of: "/webhooks", with: "/fake/script"))!
            )
            script.httpMethod = "POST"
            script.httpBody = try JSONEncoder().encode([WebhookReceiverAnswer.delayed(milliseconds: 400, status: 202)])
            let (_, scripted) = try await URLSession.shared.data(for: script)
            #expect((scripted as? HTTPURLResponse)?.statusCode == 204)
            let start = ContinuousClock.now
            let slow = try await post(to: receiver, id: "msg_slow")
            #expect(slow.status == 202)
            #expect(ContinuousClock.now - start >= .milliseconds(400))
            #expect(receiver.received().first?.status == 202)
        }
    }
}

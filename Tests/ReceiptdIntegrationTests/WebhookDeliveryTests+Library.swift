import AsyncHTTPClient
import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 22: "a signature a Standard Webhooks library accepts". PyPI's `standardwebhooks` (the specification's
/// reference library for Python) verifies what our sender builds and what a running daemon sent, and signs the
/// reference vector as we do. Needs `python3 -m pip install standardwebhooks` (.ci/run installs it): skipped
/// without it, except under CI, where its absence fails.
extension WebhookDeliveryTests {
    @Test(.enabled(if: StandardWebhooksLibrary.runs, StandardWebhooksLibrary.skipReason))
    func theReferenceLibrarySignsTheVectorAsWeDoAndVerifiesOurRequests() async throws {
        try StandardWebhooksLibrary.requireInstalled()
        let vector = (
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: Int64(1_614_265_330), body: #"{"test": 2432232314}"#,
            signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        )
        let signed = try StandardWebhooksLibrary.sign(
            secret: vector.secret,
            id: vector.id,
            timestamp: vector.timestamp,
            body: vector.body
        )
        #expect(signed == vector.signature)

        let newer = "whsec_" + Data((0..<32).map { UInt8($0 * 7 % 256) }).base64EncodedString()
        let secrets = try WebhookSecrets(fileText: "\(newer)\n\(vector.secret)\n")
        let body = #"{"type":"order.verified","timestamp":"2026-11-26T03:00:00.000000Z","data":{"order_id":"o1"}}"#
        let event = OwedWebhookEvent(
            id: Fixture.webhookID(),
            type: .orderVerified,
            orderID: "o1",
            body: body,
            attempts: 1
        )
        // Nothing is sent: the client only builds the request.
        let client = WebhookSender.makeClient(concurrency: 1)
        let sender = WebhookSender(
            client: client,
            url: "https://game.example/webhooks",
            secrets: secrets,
            timeout: .seconds(15)
        )
        let request = sender.request(for: event, timestamp: Int64(Date().timeIntervalSince1970))
        try await client.shutdown()
        var headers: [String: String] = [:]
        for (name, value) in request.headers { headers[name] = value }
        // A receiver holding either secret (rotation) verifies; one holding another, or a changed body, does not.
        for secret in [newer, vector.secret] {
            #expect(try StandardWebhooksLibrary.verify(secret: secret, body: body, headers: headers) == "verified")
        }
        let stranger = "whsec_" + Data(repeating: 1, count: 32).base64EncodedString()
        #expect(try StandardWebhooksLibrary.verify(secret: stranger, body: body, headers: headers) != "verified")
        let tampered = body.replacingOccurrences(of: "o1", with: "o2")
        #expect(try StandardWebhooksLibrary.verify(secret: newer, body: tampered, headers: headers) != "verified")
    }

    @Test(.enabled(if: StandardWebhooksLibrary.runs, StandardWebhooksLibrary.skipReason))
    func theReferenceLibraryVerifiesWhatADaemonSent() async throws {
        try StandardWebhooksLibrary.requireInstalled()
        let newer = "whsec_" + Data((0..<32).map { UInt8($0 * 3 % 256) }).base64EncodedString()
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            receiver.script([.status(500)])
            let settings = try f.deliverySettings(receiver, secrets: "\(newer)\n\(Fixture.webhookSecret)\n")
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntil {
                    try await f.value("SELECT configured::text FROM iap.webhook_endpoint") == "true"
                }
                try await f.enqueue("lib-1", receipt: Receipts.paying("5101"))
                try await f.waitUntil { try await f.webhookEvents().first?["state"] == "delivered" }
            }
            // The first attempt and its retry, each signed for its own moment.
            let received = receiver.received()
            #expect(received.count == 2)
            for request in received {
                let headers = [
                    "webhook-id": request.id, "webhook-timestamp": request.timestamp,
                    "webhook-signature": request.signature, "content-type": "application/json",
                ]
                for secret in [newer, Fixture.webhookSecret] {
                    #expect(
                        try StandardWebhooksLibrary.verify(secret: secret, body: request.body, headers: headers)
                            == "verified"
                    )
                }
            }
        }
    }
}

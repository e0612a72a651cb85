import Foundation
import Testing

@testable import ReceiptdCore

/// The request one attempt sends: `POST`, JSON, and the three Standard Webhooks headers, signed with every secret.
@Suite struct WebhookSenderTests {
    static let vector = (
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestamp: Int64(1_614_265_330), body: #"{"test": 2432232314}"#,
        signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )
    static let url = "https://game.example/webhooks"

    /// Runs `body` with a sender over a client that is shut down afterwards (nothing is sent).
    func withSender(secrets: String, _ body: (WebhookSender) throws -> Void) throws {
        let client = WebhookSender.makeClient(concurrency: 1)
        defer { try? client.syncShutdown() }
        try body(
            WebhookSender(
                client: client,
                url: Self.url,
                secrets: try WebhookSecrets(fileText: secrets),
                timeout: .seconds(15)
            )
        )
    }

    static let event = OwedWebhookEvent(
        id: vector.id,
        type: .orderVerified,
        orderID: "o1",
        body: vector.body,
        attempts: 1
    )

    @Test func theRequestCarriesTheReferenceSignature() throws {
        try withSender(secrets: Self.vector.secret) { sender in
            let request = sender.request(for: Self.event, timestamp: Self.vector.timestamp)
            #expect(request.url == Self.url)
            #expect(request.method.rawValue == "POST")
            #expect(request.headers.first(name: "content-type") == "application/json")
            #expect(request.headers.first(name: "webhook-id") == Self.vector.id)
            #expect(request.headers.first(name: "webhook-timestamp") == "1614265330")
            #expect(request.headers.first(name: "webhook-signature") == Self.vector.signature)
            #expect(request.headers["webhook-signature"].count == 1)
        }
    }

    @Test func everyAttemptIsSignedForItsOwnTimestamp() throws {
        try withSender(secrets: Self.vector.secret) { sender in
            let later = sender.request(for: Self.event, timestamp: Self.vector.timestamp + 300)
            #expect(later.headers.first(name: "webhook-id") == Self.vector.id)
            #expect(later.headers.first(name: "webhook-timestamp") == "1614265630")
            let signature = try #require(later.headers.first(name: "webhook-signature"))
            #expect(signature != Self.vector.signature)
            let secret = try WebhookSecret(Self.vector.secret)
            #expect(
                signature
                    == secret.signature(
                        id: Self.vector.id,
                        timestamp: Self.vector.timestamp + 300,
                        body: Array(Self.vector.body.utf8)
                    )
            )
        }
    }

    @Test func twoSecretsSendTwoSpaceSeparatedSignaturesTheFirstSigningFirst() throws {
        let newer = "whsec_" + Data((0..<32).map { UInt8($0) }).base64EncodedString()
        try withSender(secrets: "\(newer)\n\(Self.vector.secret)\n") { sender in
            let request = sender.request(for: Self.event, timestamp: Self.vector.timestamp)
            let header = try #require(request.headers.first(name: "webhook-signature"))
            let parts = header.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            #expect(parts.count == 2, "\(header)")
            let expectedNew = try WebhookSecret(newer).signature(
                id: Self.vector.id,
                timestamp: Self.vector.timestamp,
                body: Array(Self.vector.body.utf8)
            )
            #expect(parts == [expectedNew, Self.vector.signature])
        }
    }
}

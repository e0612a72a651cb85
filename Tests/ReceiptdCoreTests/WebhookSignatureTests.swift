import Foundation
import ReceiptdCore
import Testing

/// Standard Webhooks signatures: the reference libraries' vector exactly, rotation, and secrets refused without
/// their text in the message.
@Suite struct WebhookSignatureTests {
    static let vector = (
        secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
        timestamp: Int64(1_614_265_330), body: #"{"test": 2432232314}"#,
        signature: "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
    )

    @Test func theReferenceVectorSignsExactly() throws {
        let secret = try WebhookSecret(Self.vector.secret)
        #expect(
            secret.signature(id: Self.vector.id, timestamp: Self.vector.timestamp, body: Array(Self.vector.body.utf8))
                == Self.vector.signature
        )
        // Any other id, time or body signs differently.
        #expect(
            secret.signature(
                id: Self.vector.id,
                timestamp: Self.vector.timestamp + 1,
                body: Array(Self.vector.body.utf8)
            )
                != Self.vector.signature
        )
    }

    @Test func everySecretOfTheFileSignsTheFirstFirst() throws {
        let other = "whsec_" + Data(repeating: 7, count: 32).base64EncodedString()
        let secrets = try WebhookSecrets(fileText: "# rotation\n\(other)\n\n\(Self.vector.secret)\n")
        let header = secrets.header(
            id: Self.vector.id,
            timestamp: Self.vector.timestamp,
            body: Array(Self.vector.body.utf8)
        )
        let parts = header.split(separator: " ").map(String.init)
        #expect(parts.count == 2)
        #expect(parts[1] == Self.vector.signature)
        #expect(parts[0].hasPrefix("v1,") && parts[0] != parts[1])
    }

    @Test(arguments: [
        ("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "does not start with whsec_"),
        ("whsec_not base64!", "is not whsec_ followed by standard base64"),
        ("whsec_c2hvcnQ=", "decodes to 5 bytes; at least 24 are needed"),
    ])
    func aMalformedSecretIsRefusedWithoutItsText(text: String, problem: String) throws {
        #expect(throws: WebhookSecret.Problem.self) { try WebhookSecret(text) }
        do {
            _ = try WebhookSecrets(fileText: "\n\(text)\n")
            Issue.record("accepted \(text)")
        } catch {
            let message = "\(error)"
            #expect(message.contains("RECEIPTD_WEBHOOK_SECRET_FILE") && message.contains("line 2 \(problem)"))
            #expect(!message.contains(text))
        }
    }

    @Test func aFileWithoutSecretsIsRefused() {
        #expect(throws: ConfigurationError.self) { try WebhookSecrets(fileText: "# none yet\n\n") }
    }
}

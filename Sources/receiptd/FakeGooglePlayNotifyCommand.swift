import ArgumentParser
import AsyncHTTPClient
import FakeAppStore
import Foundation
import NIOCore

/// `receiptd fake-googleplay notify`: has a running stand-in push a real-time developer notification, signed with
/// its OIDC key, to a URL (the intake's `/notifications/google`), for demos and tests.
struct FakeGooglePlayNotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Have a running fake-googleplay push a real-time developer notification to --url.",
        discussion: """
            The push is signed with the stand-in's OIDC key (its JWKS is /oauth2/v3/certs, the daemon's \
            GOOGLE_OIDC_CERTS_URL) for --audience (default: --url) and the service account \
            \(GoogleOIDCIssuer.defaultServiceAccountEmail). Prints the stand-in's answer as JSON: status (what --url \
            answered) and message_id. Exits 0 when --url answered 2xx, 1 otherwise.
            """
    )

    @Option(help: ArgumentHelp("The running stand-in, http://HOST:PORT.", valueName: "url"))
    var standIn = "http://127.0.0.1:8090"
    @Option(help: ArgumentHelp("Where to push it, e.g. http://127.0.0.1:8443/notifications/google.", valueName: "url"))
    var url: String
    @Option(help: "purchased, canceled, voided, refund_review (a chargeback to review) or test.") var type: String
    @Option(help: "The purchase token (required for purchased, canceled and voided).") var token: String?
    @Option(help: "The product id (default: a synthetic token's).") var sku: String?
    @Option(help: "A voided or reviewed purchase's orderId (default: a synthetic token's).") var orderId: String?
    @Option(help: "A refund review's pendingRefundToken (default: a fresh one).") var refundToken: String?
    @Option(help: "A refund review's refundReason code.") var refundReason: Int?
    @Option(help: "A refund review's obfuscatedAccountId (default: a synthetic token's).") var accountId: String?
    @Option(help: "A voided purchase's refundType: 1 full, 2 quantity-based partial.") var refundType: Int?
    @Option(help: "The OIDC token's aud (the daemon's GOOGLE_PUBSUB_AUDIENCE; default: --url).") var audience: String?
    @Option(help: "The Pub/Sub messageId (default: a fresh one; the same again is a redelivery).") var messageId:
        String?
    @Option(help: "The notification's packageName (default: the stand-in's package).") var packageName: String?

    func validate() throws {
        guard ["purchased", "canceled", "voided", "refund_review", "test"].contains(type) else {
            throw ValidationError("--type must be purchased, canceled, voided, refund_review or test, got \(type)")
        }
        if ["purchased", "canceled", "voided"].contains(type) && token == nil {
            throw ValidationError("--token is required for --type \(type)")
        }
        if type == "refund_review" && token == nil && orderId == nil {
            throw ValidationError("--order-id (or a synthetic --token naming one) is required for --type refund_review")
        }
    }

    func run() async throws {
        var order: [String: Any] = ["url": url, "type": type]
        let strings = [
            ("token", token), ("sku", sku), ("order_id", orderId), ("audience", audience), ("message_id", messageId),
            ("package_name", packageName), ("refund_token", refundToken), ("account_id", accountId),
        ]
        for case (let key, let value?) in strings { order[key] = value }
        if let refundType { order["refund_type"] = refundType }
        if let refundReason { order["refund_reason"] = refundReason }
        var request = HTTPClientRequest(url: standIn + "/fake/rtdn")
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: order)))
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
        let body = String(buffer: try await response.body.collect(upTo: 1 << 20))
        print(body)
        let answer = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any]
        guard response.status == .ok, let status = answer?["status"] as? Int, (200..<300).contains(status) else {
            throw ExitCode(1)
        }
    }
}

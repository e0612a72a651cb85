import AsyncHTTPClient
import Foundation
import NIOCore
import ReceiptdCore

/// The stand-in's side of real-time developer notifications: it pushes one as Cloud Pub/Sub does, the body
/// `{"message": {"data": <base64 JSON>, "messageId", "message_id", "publishTime", "publish_time", "attributes"},
/// "subscription"}` with `Authorization: Bearer <OIDC token>` signed by ``oidc`` (whose keys it serves at
/// ``oidcCertsURL``).
/// - `POST /fake/rtdn` with `{"url", "audience"?, "type": "purchased"|"canceled"|"voided"|"refund_review"|"test",
///   "token"?, "sku"?, "order_id"?, "refund_type"?, "refund_token"?, "refund_reason"?, "account_id"?,
///   "package_name"?, "message_id"?}` pushes one to `url` and answers 200
///   `{"status": <what url answered>, "message_id": …}` (400 for a bad order, 502 when `url` cannot be reached).
extension GooglePlayStandIn {
    /// Which spellings of the message's fields a push body carries (Pub/Sub sends both).
    package enum PushSpelling: Sendable {
        /// `messageId` and `publishTime` only.
        case camelCase
        /// `message_id` and `publish_time` only.
        case snakeCase
        /// Both, as Pub/Sub does.
        case both
    }

    /// The subscription pushes name.
    package static let pushSubscription = "projects/receiptd-test/subscriptions/play-rtdn-push"

    /// Pushes `notification` to `url` as Pub/Sub would, with a token for `audience` (default `url`, Pub/Sub's default
    /// audience) from `email` (default ``GoogleOIDCIssuer/defaultServiceAccountEmail``); returns the HTTP status
    /// `url` answered. Throws when it cannot be reached.
    package func push(
        _ notification: GoogleDeveloperNotification,
        to url: String,
        audience: String? = nil,
        messageID: String? = nil,
        email: String? = nil
    ) async throws -> Int {
        let data = try JSONEncoder().encode(notification)
        let body = Self.pushBody(data: data, messageID: messageID ?? Self.randomMessageID())
        let token = oidc.token(audience: audience ?? url, email: email ?? GoogleOIDCIssuer.defaultServiceAccountEmail)
        return try await Self.post(body, to: url, authorization: "Bearer " + token)
    }

    /// A push body carrying `data` (base64-encoded here, standard alphabet) as message `messageID`.
    package static func pushBody(
        data: Data,
        messageID: String,
        publishTime: Date = Date(),
        attributes: [String: String] = [:],
        spelling: PushSpelling = .both
    ) -> Data {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let published = formatter.string(from: publishTime)
        var message: [String: Any] = ["data": data.base64EncodedString(), "attributes": attributes]
        if spelling != .snakeCase {
            message["messageId"] = messageID
            message["publishTime"] = published
        }
        if spelling != .camelCase {
            message["message_id"] = messageID
            message["publish_time"] = published
        }
        // Strings and a dictionary of strings: this always serializes.
        return
            (try? JSONSerialization.data(
                withJSONObject: ["message": message, "subscription": pushSubscription],
                options: [.sortedKeys, .withoutEscapingSlashes]
            )) ?? Data()
    }

    /// POSTs a push body with `authorization` (if any); returns the status answered.
    package static func post(_ body: Data, to url: String, authorization: String?) async throws -> Int {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        if let authorization { request.headers.add(name: "Authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(bytes: body))
        // About as long as Pub/Sub waits for an answer.
        let response = try await HTTPClient.shared.execute(request, timeout: .seconds(10))
        _ = try await response.body.collect(upTo: 1 << 16)
        return Int(response.status.code)
    }

    /// A message id like Pub/Sub's: a long decimal number.
    static func randomMessageID() -> String {
        String(UInt64.random(in: 1_000_000_000_000...9_999_999_999_999_999))
    }

    /// `POST /fake/rtdn`: pushes the notification the body orders, then answers what the endpoint said.
    func fakeRTDN(body: String) async -> GooglePlayAnswer {
        guard let fields = (try? JSONSerialization.jsonObject(with: Data(body.utf8))) as? [String: Any],
            let url = fields["url"] as? String, let type = fields["type"] as? String
        else { return Self.badOrder("a JSON object with url and type is required") }
        let token = fields["token"] as? String
        let synthetic = token.flatMap(SyntheticPurchaseToken.init(token:))
        let package = fields["package_name"] as? String ?? packageName
        let notification: GoogleDeveloperNotification
        switch type {
        case "purchased", "canceled":
            guard let token, let sku = fields["sku"] as? String ?? synthetic?.productID else {
                return Self.badOrder("\(type) needs a token and a sku")
            }
            notification = .oneTimeProduct(token: token, sku: sku, canceled: type == "canceled", packageName: package)
        case "voided":
            guard let token else { return Self.badOrder("voided needs a token") }
            notification = .voided(
                token: token,
                orderID: fields["order_id"] as? String ?? synthetic?.orderID,
                refundType: fields["refund_type"] as? Int ?? 1,
                packageName: package
            )
        case "refund_review":
            guard let orderID = fields["order_id"] as? String ?? synthetic?.orderID else {
                return Self.badOrder("refund_review needs an order_id (or a synthetic token naming one)")
            }
            notification = .pendingRefundReview(
                token: fields["refund_token"] as? String ?? "prt-" + UUID().uuidString,
                orderID: orderID,
                reason: fields["refund_reason"] as? Int,
                accountID: fields["account_id"] as? String ?? synthetic?.accountID,
                packageName: package
            )
        case "test":
            notification = .test(packageName: package)
        default:
            return Self.badOrder("type is purchased, canceled, voided, refund_review or test")
        }
        let messageID = fields["message_id"] as? String ?? Self.randomMessageID()
        do {
            let status = try await push(
                notification,
                to: url,
                audience: fields["audience"] as? String,
                messageID: messageID
            )
            return .json(200, ["status": .int(status), "message_id": .string(messageID)] as [String: PushAnswerField])
        } catch {
            return GooglePlayAnswer(status: 502, body: #"{"error":"cannot push to the url"}"#)
        }
    }

    /// 400 with why.
    private static func badOrder(_ why: String) -> GooglePlayAnswer {
        .json(400, ["error": why])
    }

    /// A field of `POST /fake/rtdn`'s answer.
    enum PushAnswerField: Encodable {
        case int(Int)
        case string(String)

        func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .int(let value): try container.encode(value)
            case .string(let value): try container.encode(value)
            }
        }
    }
}

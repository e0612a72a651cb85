import Foundation

/// A Cloud Pub/Sub push request's body, `{"message": {"data", "messageId", "publishTime", "attributes"},
/// "subscription"}`. Real pushes carry both spellings of the message's fields (`messageId` and `message_id`,
/// `publishTime` and `publish_time`); either is taken. `data` is standard base64.
package struct GooglePushMessage: Sendable, Equatable {
    /// Why a body cannot be taken: `reason` is `body` (not the push envelope) or `malformed` (no `messageId`, `data`
    /// that is not base64 of a JSON object).
    package struct FormatError: Error, Equatable, CustomStringConvertible {
        /// `body` or `malformed`.
        package var reason: String
        /// What is wrong, without the data.
        package var description: String
    }

    /// Pub/Sub's `messageId`: unique per topic, the same on every redelivery.
    package var messageID: String
    /// `publishTime` as sent (RFC 3339), when there is one.
    package var publishTime: String?
    /// `attributes`, when there are any.
    package var attributes: [String: String]
    /// The subscription that pushed it.
    package var subscription: String?
    /// The decoded `data`: the JSON text of the notification, a JSON object.
    package var data: Data

    /// Reads a push body.
    package init(body: [UInt8]) throws(FormatError) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any],
            let message = object["message"] as? [String: Any]
        else {
            throw FormatError(reason: "body", description: #"body is not {"message": {…}, "subscription": …}"#)
        }
        guard let id = (message["messageId"] ?? message["message_id"]) as? String, !id.isEmpty else {
            throw FormatError(reason: "malformed", description: "message has no messageId")
        }
        guard let encoded = message["data"] as? String, let data = Self.base64(encoded),
            (try? JSONSerialization.jsonObject(with: data)) is [String: Any]
        else {
            throw FormatError(reason: "malformed", description: "message data is not base64 of a JSON object")
        }
        messageID = id
        publishTime = ((message["publishTime"] ?? message["publish_time"]) as? String).flatMap {
            $0.isEmpty ? nil : $0
        }
        attributes = (message["attributes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String }
        subscription = object["subscription"] as? String
        self.data = data
    }

    /// `publishTime` as a date; nil when missing or not RFC 3339.
    package var published: Date? {
        publishTime.flatMap(RFC3339.milliseconds).map { Date(timeIntervalSince1970: Double($0) / 1000) }
    }

    /// The message without its data, as recorded: `{"messageId", "publishTime", "attributes", "subscription"}`.
    package var recordedJSON: String {
        struct Recorded: Encodable {
            var messageId: String
            var publishTime: String?
            var attributes: [String: String]
            var subscription: String?
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let recorded = Recorded(
            messageId: messageID,
            publishTime: publishTime,
            attributes: attributes,
            subscription: subscription
        )
        // Strings only: this always encodes.
        return String(decoding: (try? encoder.encode(recorded)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// Standard base64, padded or not (whitespace ignored, as Pub/Sub's clients do).
    static func base64(_ text: String) -> Data? {
        var standard = text.filter { !$0.isWhitespace }
        if standard.count % 4 != 0 {
            standard += String(repeating: "=", count: 4 - standard.count % 4)
        }
        return Data(base64Encoded: standard)
    }
}

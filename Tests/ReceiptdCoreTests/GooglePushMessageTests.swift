import Foundation
import Testing

@testable import ReceiptdCore

/// Pub/Sub's push body, read without I/O: both spellings, standard base64, RFC 3339 with up to nine digits.
@Suite struct GooglePushMessageTests {
    static let data = Data(
        #"{"version":"1.0","packageName":"com.example.game","testNotification":{"version":"1.0"}}"#.utf8
    )

    static func body(_ message: [String: Any], subscription: String? = "projects/p/subscriptions/s") -> [UInt8] {
        var object: [String: Any] = ["message": message]
        object["subscription"] = subscription
        return [UInt8]((try? JSONSerialization.data(withJSONObject: object)) ?? Data())
    }

    @Test func bothSpellingsAreRead() throws {
        let encoded = Self.data.base64EncodedString()
        let camel = try GooglePushMessage(
            body: Self.body(["data": encoded, "messageId": "1", "publishTime": "2026-01-02T03:04:05.123Z"])
        )
        let snake = try GooglePushMessage(
            body: Self.body(["data": encoded, "message_id": "1", "publish_time": "2026-01-02T03:04:05.123Z"])
        )
        #expect(camel == snake)
        #expect(camel.messageID == "1" && camel.data == Self.data && camel.subscription == "projects/p/subscriptions/s")
        #expect(abs((camel.published?.timeIntervalSince1970 ?? 0) - 1_767_323_045.123) < 1e-6)
    }

    @Test func theRecordedMessageHasNoData() throws {
        let message = try GooglePushMessage(
            body: Self.body([
                "data": Self.data.base64EncodedString(), "messageId": "42", "publishTime": "2026-01-02T03:04:05Z",
                "attributes": ["a": "b"],
            ])
        )
        let recorded = try #require(
            try JSONSerialization.jsonObject(with: Data(message.recordedJSON.utf8)) as? [String: Any]
        )
        #expect(Set(recorded.keys) == ["messageId", "publishTime", "attributes", "subscription"])
        #expect(recorded["messageId"] as? String == "42" && recorded["attributes"] as? [String: String] == ["a": "b"])
    }

    @Test func publishTimesWithAnyFraction() {
        #expect(RFC3339.milliseconds("2026-01-02T03:04:05Z") == 1_767_323_045_000)
        #expect(RFC3339.milliseconds("2026-01-02T03:04:05.123456789Z") == 1_767_323_045_123)
        #expect(RFC3339.milliseconds("2026-01-02T05:04:05.5+02:00") == 1_767_323_045_500)
        #expect(RFC3339.milliseconds("yesterday") == nil)
        #expect(RFC3339.milliseconds("2026-01-02T03:04:05.Z") == nil)
    }

    @Test func unpaddedBase64IsTaken() throws {
        let unpadded = Self.data.base64EncodedString().replacingOccurrences(of: "=", with: "")
        #expect(try GooglePushMessage(body: Self.body(["data": unpadded, "messageId": "1"])).data == Self.data)
    }

    @Test func badBodiesSayWhy() {
        let encoded = Self.data.base64EncodedString()
        let cases: [([UInt8], String)] = [
            (Array("nope".utf8), "body"),
            (Array("[]".utf8), "body"),
            (Array(#"{"message":"x"}"#.utf8), "body"),
            (Self.body(["data": encoded]), "malformed"),
            (Self.body(["data": encoded, "messageId": ""]), "malformed"),
            (Self.body(["messageId": "1"]), "malformed"),
            (Self.body(["data": "%%%", "messageId": "1"]), "malformed"),
            (Self.body(["data": Data("\"text\"".utf8).base64EncodedString(), "messageId": "1"]), "malformed"),
        ]
        for (body, reason) in cases {
            #expect(throws: GooglePushMessage.FormatError.self, "\(String(decoding: body, as: UTF8.self))") {
                try GooglePushMessage(body: body)
            }
            do {
                _ = try GooglePushMessage(body: body)
            } catch {
                #expect(error.reason == reason, "\(String(decoding: body, as: UTF8.self)): \(error)")
            }
        }
    }
}

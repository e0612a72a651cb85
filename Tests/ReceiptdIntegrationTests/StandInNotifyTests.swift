import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// `receiptd fake-appstore notify`: a running stand-in signs a notification, keeps it in its history and posts it
/// to the URL, and the command prints what the target answered.
@Suite struct StandInNotifyTests {
    private func notify(_ f: Fixture, _ arguments: [String]) throws -> ReceiptdBinary.Run {
        try ReceiptdBinary.run(["fake-appstore", "notify", "--stand-in", f.standIn.serverAPIURL] + arguments)
    }

    @Test func notifyPostsASignedNotificationAndPrintsTheAnswer() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.stop() } }
        try await Fixture.with { f in
            let token = UUID().uuidString.lowercased()
            let run = try notify(
                f,
                [
                    "--url", receiver.url, "--type", "REFUND", "--transaction-id", "42", "--product-id", "gems",
                    "--quantity", "2", "--app-account-token", token, "--revocation-reason", "1",
                    "--revocation-type", "REFUND_PRORATED", "--revocation-percentage", "50000",
                ]
            )
            #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
            let result = try JSONDecoder().decode(NotificationSendResult.self, from: Data(run.stdout.utf8))
            #expect(result.delivered && result.httpStatus == 200)
            let posted = try #require(receiver.bodies.withLock { $0 }.first)
            #expect(posted == #"{"signedPayload":"\#(result.signedPayload)"}"#)
            let notification = try UncheckedNotificationDecoder.decode(
                result.signedPayload,
                bundleID: SyntheticReceipt.defaultBundleID
            )
            #expect(notification.type == "REFUND" && notification.transactionID == "42")
            #expect(notification.notificationID == result.notificationUUID && notification.environment == .production)
            let transaction = try #require(
                (try JSONSerialization.jsonObject(with: Data(notification.payload.utf8)) as? [String: Any])?[
                    "transaction"
                ] as? [String: Any]
            )
            #expect(transaction["quantity"] as? Int == 2 && transaction["appAccountToken"] as? String == token)
            #expect(transaction["revocationReason"] as? Int == 1 && transaction["revocationDate"] != nil)
            #expect(transaction["revocationType"] as? String == "REFUND_PRORATED")
            #expect(transaction["revocationPercentage"] as? Int == 50000)
            #expect(f.standIn.sentNotifications().map(\.notificationUUID) == [result.notificationUUID])

            // Kept in the history only.
            let kept = try notify(f, ["--no-deliver", "--type", "CONSUMPTION_REQUEST", "--transaction-id", "43"])
            #expect(kept.status == 0, "\(kept.stdout)\(kept.stderr)")
            #expect(receiver.bodies.withLock { $0.count } == 1)
            #expect(f.standIn.sentNotifications().last?.notificationType == "CONSUMPTION_REQUEST")
            #expect(f.standIn.sentNotifications().last?.url == nil)

            // --url is needed to deliver.
            #expect(try notify(f, ["--type", "TEST"]).status != 0)
        }
    }

    @Test func notifyFailsWhenTheTargetRefuses() async throws {
        let receiver = try await NotificationReceiver.start(status: 503)
        defer { Task { await receiver.stop() } }
        try await Fixture.with { f in
            let run = try notify(f, ["--url", receiver.url, "--type", "TEST", "--environment", "Sandbox"])
            #expect(run.status == 1)
            let result = try JSONDecoder().decode(NotificationSendResult.self, from: Data(run.stdout.utf8))
            #expect(result.httpStatus == 503)
            #expect(f.standIn.sentNotifications().first?.environment == "Sandbox")
        }
    }
}

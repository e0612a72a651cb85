import Foundation
import Testing
import _CryptoExtras

@testable import ReceiptdCore

/// Google Play's settings: defaults, a key file that cannot be read (jobs wait) or is malformed (exit 78,
/// naming the variable, never the key), and the pending purchase's schedule.
@Suite struct GooglePlaySettingsTests {
    private func withFile(_ contents: String, _ body: (String) throws -> Void) throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(contents.utf8)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        try body(path)
    }

    private static func keyJSON(
        privateKey: String,
        tokenURI: String = "https://oauth2.googleapis.com/token"
    ) throws -> String {
        let object: [String: String] = [
            "type": "service_account", "client_email": "svc@example.iam.gserviceaccount.com",
            "private_key": privateKey, "token_uri": tokenURI,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
    }

    @Test func defaults() throws {
        let google = try ReceiptdSettings(completing: [:]).googlePlay
        #expect(google.serviceAccount == nil && google.packageName == nil)
        #expect(google.apiURL == "https://androidpublisher.googleapis.com")
        #expect(google.finalize == .acknowledge)
        #expect(google.voidedInterval == .seconds(600))
        #expect(google.unavailable?.contains("GOOGLE_SERVICE_ACCOUNT_FILE") == true)
        #expect(google.orderAmounts == .off)
    }

    @Test func orderAmountsAreOnOrOffAndNothingElse() throws {
        #expect(try ReceiptdSettings(completing: ["GOOGLE_PLAY_ORDER_AMOUNTS": "on"]).googlePlay.orderAmounts == .on)
        #expect {
            _ = try ReceiptdSettings(completing: ["GOOGLE_PLAY_ORDER_AMOUNTS": "yes"])
        } throws: { error in
            "\(error)".contains("GOOGLE_PLAY_ORDER_AMOUNTS")
        }
    }

    @Test func aGoodKeyFileAndPackage() throws {
        let pem = try _RSA.Signing.PrivateKey(keySize: .bits2048).pemRepresentation
        try withFile(try Self.keyJSON(privateKey: pem)) { path in
            let google = try ReceiptdSettings(completing: [
                "GOOGLE_SERVICE_ACCOUNT_FILE": path, "GOOGLE_PLAY_PACKAGE_NAME": "com.example.game",
                "GOOGLE_PLAY_FINALIZE": "consume",
                "GOOGLE_PLAY_VOIDED_INTERVAL": "5m", "GOOGLE_PLAY_FINALIZE_OVERDUE": "2h",
            ]).googlePlay
            #expect(google.serviceAccount?.clientEmail == "svc@example.iam.gserviceaccount.com")
            #expect(!"\(google.serviceAccount!)".contains("PRIVATE"))
            #expect(google.unavailable == nil && google.finalize == .consume)
            #expect(google.voidedInterval == .seconds(300) && google.finalizeOverdue == .seconds(7200))
        }
    }

    @Test func aMalformedKeyFileStopsTheDaemonWithoutShowingTheKey() throws {
        let secretish =
            "-----BEGIN PRIVATE KEY-----\nTUlJQ2RnSUJBREFOQmdrcWhraUc5dzBCQVFFRkFBU0NBbUF3Z2dKY0FnRUFBb0dCQUwx\n-----END PRIVATE KEY-----"
        for contents in [
            "not json", try Self.keyJSON(privateKey: secretish), "{\"client_email\": \"a@b\"}",
            try Self.keyJSON(privateKey: secretish, tokenURI: "http://oauth.example.com/token"),
        ] {
            try withFile(contents) { path in
                #expect { _ = try ReceiptdSettings(completing: ["GOOGLE_SERVICE_ACCOUNT_FILE": path]) } throws: {
                    error in
                    guard let error = error as? ConfigurationError else { return false }
                    return error.variable == "GOOGLE_SERVICE_ACCOUNT_FILE"
                        && !error.description.contains("TUlJQ2RnSUJBREFO")
                }
            }
        }
    }

    @Test func anUnreadableKeyFileMakesGoogleJobsWaitInsteadOfStopping() throws {
        let google = try ReceiptdSettings(completing: [
            "GOOGLE_SERVICE_ACCOUNT_FILE": "/nonexistent/key.json",
            "GOOGLE_PLAY_PACKAGE_NAME": "com.example.game",
        ]).googlePlay
        #expect(google.unavailable?.contains("cannot read \"/nonexistent/key.json\"") == true)
    }

    @Test func badValuesNameTheirVariable() {
        for (name, value) in [
            ("GOOGLE_PLAY_FINALIZE", "later"), ("GOOGLE_PLAY_VOIDED_INTERVAL", "often"),
            ("GOOGLE_PLAY_FINALIZE_OVERDUE", "0"), ("GOOGLE_PLAY_API_URL", "http://play.example.com"),
        ] {
            #expect { _ = try ReceiptdSettings(completing: [name: value]) } throws: {
                ($0 as? ConfigurationError)?.variable == name
            }
        }
    }

    @Test func aPendingPurchaseIsAskedAboutLessOftenTheLongerItWaits() {
        #expect(PendingSchedule.delay(afterWaiting: .zero) == .seconds(60))
        #expect(PendingSchedule.delay(afterWaiting: .seconds(1200)) == .seconds(300))
        #expect(PendingSchedule.delay(afterWaiting: .seconds(7200)) == .seconds(900))
        #expect(PendingSchedule.delay(afterWaiting: .seconds(2 * 86_400)) == .seconds(3600))
        #expect(GoogleVoidedPoller.reason(1) == "remorse" && GoogleVoidedPoller.reason(7) == "chargeback")
    }
}

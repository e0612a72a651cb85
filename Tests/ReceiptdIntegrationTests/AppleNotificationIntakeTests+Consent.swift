import FakeAppStore
import Foundation
import ReceiptdCore
import Testing

/// Issue 32, item 2: a genuine notification about the app rather than a purchase (`RESCIND_CONSENT`, with `appData`
/// and no `data`) is checked where it names its app, recorded, answered 200, and handed to the game; any other
/// shape Apple signs for this app is recorded too, and the checks still refuse what fails them.
extension AppleNotificationIntakeTests {
    /// A RESCIND_CONSENT for app transaction `id`, its `appData` naming `bundle` and `environment`, its app
    /// transaction signed by `appTransactionChain` (by default `chain`) for `appTransactionBundle`.
    static func rescindConsent(
        _ id: String,
        chain: AppleTestChain,
        appTransactionChain: AppleTestChain? = nil,
        bundle: String = SyntheticReceipt.defaultBundleID,
        appTransactionBundle: String? = nil,
        environment: String = "Production",
        appTransactionEnvironment: String? = nil,
        appAppleId: Int64? = nil
    ) -> AppleNotificationPayload {
        let appTransaction = AppTransactionPayload(
            appTransactionId: id,
            bundleId: appTransactionBundle ?? bundle,
            appAppleId: appAppleId,
            receiptType: appTransactionEnvironment ?? environment
        )
        return AppleNotificationPayload(
            notificationType: "RESCIND_CONSENT",
            bundleId: bundle,
            appAppleId: appAppleId,
            environment: environment,
            hasData: false,
            signedAppTransactionInfo: (appTransactionChain ?? chain).sign(payload: appTransaction.encodedJSON())
        )
    }

    @Test func aRescindConsentWithAppDataIsRecordedAndAnswered200() async throws {
        try await Fixture.with { f in
            try await Self.withIntake(f, settings: { $0.storeKit.appAppleID = 1_234_567 }) { intake in
                let payload = Self.rescindConsent("app-7001", chain: f.standIn.testChain, appAppleId: 1_234_567)
                let (status, answer) = try await Self.post(intake.port, f.standIn.testChain.notificationBody(payload))
                #expect(status == 200, "answered \(status) \(answer)")
                let row = try await f.row(
                    """
                    SELECT notification_type, transaction_id, environment, source,
                           payload->'notification'->'appData'->>'bundleId' AS bundle,
                           payload->'appTransaction'->>'appTransactionId' AS app_transaction
                    FROM iap.store_notifications WHERE notification_id = $1
                    """,
                    [payload.notificationUUID]
                )
                #expect(row["notification_type"] == "RESCIND_CONSENT" && row["transaction_id"] == nil)
                #expect(row["environment"] == "Production" && row["source"] == "push")
                #expect(row["bundle"] == SyntheticReceipt.defaultBundleID && row["app_transaction"] == "app-7001")
            }
        }
    }

    @Test func appDataIsCheckedAsDataIs() async throws {
        let foreign = try AppleTestChain.generate()
        try await Fixture.with { f in
            let chain = f.standIn.testChain
            let settings: (inout ReceiptdSettings) -> Void = {
                $0.daemon.sandbox = .reject
                $0.storeKit.appAppleID = 1_234_567
            }
            try await Self.withIntake(f, settings: settings) { intake in
                let cases: [(name: String, body: Data, reason: String)] = [
                    ("forged chain", foreign.notificationBody(Self.rescindConsent("a1", chain: foreign)), "chain"),
                    (
                        "app transaction signed elsewhere",
                        chain.notificationBody(
                            Self.rescindConsent("a2", chain: chain, appTransactionChain: foreign, appAppleId: 1_234_567)
                        ),
                        "chain"
                    ),
                    (
                        "another bundle",
                        chain.notificationBody(Self.rescindConsent("a3", chain: chain, bundle: "com.other.app")),
                        "bundle"
                    ),
                    (
                        "an app transaction of another bundle",
                        chain.notificationBody(
                            Self.rescindConsent(
                                "a4",
                                chain: chain,
                                appTransactionBundle: "com.other.app",
                                appAppleId: 1_234_567
                            )
                        ),
                        "bundle"
                    ),
                    (
                        "sandbox under reject",
                        chain.notificationBody(Self.rescindConsent("a5", chain: chain, environment: "Sandbox")),
                        "environment"
                    ),
                    (
                        "an app transaction of another environment",
                        chain.notificationBody(
                            Self.rescindConsent(
                                "a6",
                                chain: chain,
                                appTransactionEnvironment: "Sandbox",
                                appAppleId: 1_234_567
                            )
                        ),
                        "environment"
                    ),
                    (
                        "appAppleId mismatch",
                        chain.notificationBody(Self.rescindConsent("a7", chain: chain, appAppleId: 7_654_321)),
                        "app_apple_id"
                    ),
                ]
                for check in cases {
                    let (status, answer) = try await Self.post(intake.port, check.body)
                    #expect(status == 401 && answer == "\(check.reason)\n", "\(check.name): \(status) \(answer)")
                }
                #expect(try await Self.count(f) == 0)
            }
        }
    }

    @Test func aShapeApplAddsLaterIsRecordedWhenItNamesThisApp() async throws {
        try await Fixture.with { f in
            try await Self.withIntake(f) { intake in
                let uuid = UUID().uuidString.lowercased()
                let json = """
                    {"notificationType":"SOMETHING_NEW","notificationUUID":"\(uuid)","signedDate":\(SignedTransactionPayload.nowMilliseconds()),"version":"2.0","futureData":{"bundleId":"\(SyntheticReceipt.defaultBundleID)","environment":"Production"}}
                    """
                let jws = f.standIn.testChain.sign(payload: Data(json.utf8))
                let (status, _) = try await Self.post(intake.port, Data(#"{"signedPayload":"\#(jws)"}"#.utf8))
                #expect(status == 200)
                // One that names no app at all is still refused: nothing says it is for this app.
                let nameless = """
                    {"notificationType":"SOMETHING_NEW","notificationUUID":"\(UUID().uuidString)","signedDate":\(SignedTransactionPayload.nowMilliseconds()),"version":"2.0"}
                    """
                let other = f.standIn.testChain.sign(payload: Data(nameless.utf8))
                #expect(try await Self.post(intake.port, Data(#"{"signedPayload":"\#(other)"}"#.utf8)).0 == 401)
                #expect(
                    try await f.value("SELECT string_agg(notification_id, ',') FROM iap.store_notifications") == uuid
                )
            }
        }
    }

    @Test func aRescindedConsentIsHandedToTheGameAndChangesNoPurchase() async throws {
        try await Fixture.with { f in
            let receiver = try await Fixture.webhookReceiver()
            defer { Task { try? await receiver.shutdown() } }
            let settings = try f.webhookSettings(receiver)
            let purchase = SyntheticReceipt(inApp: [Receipts.purchase("7150")]).encoded()
            try await f.enqueue("consent-order", user: "carol", receipt: purchase)
            let listener = try await f.database.connect()
            try await listener.execute("LISTEN iap_consent_rescinded")
            let payload = Self.rescindConsent("app-7100", chain: f.standIn.testChain)
            try await f.withDaemons(settings: settings) { _ in
                try await f.waitUntilSettled()
                let ledger = try await f.value(
                    "SELECT string_agg(transaction_id || ' ' || coalesce(revoked_at::text, '-'), ',') FROM iap.deliveries"
                )
                #expect(ledger == "7150 -")
                try await Self.withIntake(f) { intake in
                    let (status, _) = try await Self.post(intake.port, f.standIn.testChain.notificationBody(payload))
                    #expect(status == 200)
                }
                let id = try #require(
                    try await f.value(
                        "SELECT id FROM iap.store_notifications WHERE notification_id = $1",
                        [payload.notificationUUID]
                    ).flatMap(Int64.init)
                )
                try await f.expectProcessed(id, "consent_rescinded")
                try await f.waitUntil { receiver.delivered().contains { $0.type == "consent.rescinded" } }
                // No purchase changed.
                #expect(
                    try await f.value(
                        "SELECT string_agg(transaction_id || ' ' || coalesce(revoked_at::text, '-'), ',') FROM iap.deliveries"
                    ) == ledger
                )
            }
            let notes = try await listener.withSession { try $0.waitForNotifications(timeoutMilliseconds: 2_000) }
            await listener.close()
            let note = try #require(notes.first { $0.channel == "iap_consent_rescinded" })
            let news = try #require(try JSONSerialization.jsonObject(with: Data(note.payload.utf8)) as? [String: Any])
            #expect(news["app_transaction_id"] as? String == "app-7100")
            #expect(news["environment"] as? String == "Production")
            // Apple's signedDate, in UTC (PostgreSQL leaves out a fraction of .000).
            let said = try #require(news["signed_at"] as? String)
            let precise = ISO8601DateFormatter()
            precise.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            let date = try #require(precise.date(from: said) ?? ISO8601DateFormatter().date(from: said), "\(said)")
            #expect(
                said.hasSuffix("+00:00") && Int64((date.timeIntervalSince1970 * 1000).rounded()) == payload.signedDate
            )
            let event = try #require(try await f.webhookEvents().first { $0["type"] == "consent.rescinded" })
            #expect(event["order_id"] == nil && event["user_id"] == nil && event["state"] == "delivered")
            #expect(event["payload"]?.contains(#""app_transaction_id": "app-7100""#) == true)
        }
    }
}

import FakeAppStore
import Foundation
import Testing

@testable import ReceiptdCore

/// Issue 19: a notification's `signedPayload` is verified as a signed transaction is (at its own `signedDate`),
/// then its app and environment, then its nested transaction; each failed check says which, and whether the
/// request was malformed (400) or untrusted (401).
@Suite struct AppleNotificationVerifierTests {
    private static let chain = try! AppleTestChain.generate()
    private static let bundle = SyntheticReceipt.defaultBundleID

    private static func verifier(
        sandbox: SandboxPolicy = .accept,
        appAppleID: Int64? = nil
    ) -> AppleNotificationVerifier {
        AppleNotificationVerifier(
            jws: AppleJWSVerifier(roots: [chain.root]),
            bundleID: bundle,
            sandbox: sandbox,
            appAppleID: appAppleID
        )
    }

    private static func refund(
        _ id: String,
        bundle: String = AppleNotificationVerifierTests.bundle,
        transactionBundle: String = AppleNotificationVerifierTests.bundle,
        environment: String = "Production",
        appAppleId: Int64? = nil
    ) -> AppleNotificationPayload {
        let transaction = SignedTransactionPayload(
            transactionId: id,
            originalTransactionId: "o\(id)",
            bundleId: transactionBundle,
            productId: "gems",
            environment: environment,
            revocationDate: SignedTransactionPayload.nowMilliseconds(),
            revocationReason: 1
        )
        return AppleNotificationPayload(
            notificationType: "REFUND",
            bundleId: bundle,
            appAppleId: appAppleId,
            environment: environment,
            signedTransactionInfo: chain.signedTransaction(transaction)
        )
    }

    private static func rejection(
        _ jws: String,
        _ verifier: AppleNotificationVerifier = AppleNotificationVerifierTests.verifier()
    ) async -> AppleNotificationRejection? {
        do {
            _ = try await verifier.verify(signedPayload: jws, source: .push)
            return nil
        } catch {
            return error
        }
    }

    @Test func aRefundBecomesARecordWithItsNotificationAndTransaction() async throws {
        let payload = Self.refund("9001")
        let record = try await Self.verifier().verify(
            signedPayload: Self.chain.signedNotification(payload),
            source: .history
        )
        #expect(record.store == .apple && record.source == .history)
        #expect(record.notificationID == payload.notificationUUID && record.type == "REFUND" && record.subtype == nil)
        #expect(record.transactionID == "9001" && record.originalTransactionID == "o9001")
        #expect(record.environment == .production)
        #expect(record.signedAt.map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) } == payload.signedDate)
        let object = try #require(
            try JSONSerialization.jsonObject(with: Data(record.payload.utf8)) as? [String: Any]
        )
        let notification = try #require(object["notification"] as? [String: Any])
        let transaction = try #require(object["transaction"] as? [String: Any])
        #expect(notification["notificationUUID"] as? String == payload.notificationUUID)
        let data = try #require(notification["data"] as? [String: Any])
        #expect(data["signedTransactionInfo"] as? String == payload.signedTransactionInfo, "still the JWS")
        #expect(transaction["transactionId"] as? String == "9001" && transaction["revocationReason"] as? Int == 1)
    }

    @Test func aSummaryWithoutDataIsAcceptedWithoutATransaction() async throws {
        let payload = AppleNotificationPayload(
            notificationType: "RENEWAL_EXTENSION",
            subtype: "SUMMARY",
            hasData: false
        )
        let record = try await Self.verifier().verify(
            signedPayload: Self.chain.signedNotification(payload),
            source: .push
        )
        #expect(record.type == "RENEWAL_EXTENSION" && record.subtype == "SUMMARY")
        #expect(record.transactionID == nil && record.environment == .production)
        #expect(!record.payload.contains("\"transaction\":"))
    }

    @Test func anUnknownTypeIsAccepted() async throws {
        let payload = AppleNotificationPayload(notificationType: "SOMETHING_NEW_2030")
        let record = try await Self.verifier().verify(
            signedPayload: Self.chain.signedNotification(payload),
            source: .push
        )
        #expect(record.type == "SOMETHING_NEW_2030" && record.transactionID == nil)
    }

    @Test func eachFailedCheckSaysWhichAndHowBad() async throws {
        let foreign = try AppleTestChain.generate()
        let good = Self.chain.signedNotification(Self.refund("9101"))
        let parts = good.split(separator: ".")
        let otherSignature = Self.chain.signedNotification(Self.refund("9102")).split(separator: ".")[2]
        let cases: [(name: String, jws: String, verifier: AppleNotificationVerifier, reason: String, says: String)] = [
            ("not a JWS", "hello", Self.verifier(), "malformed", "not a compact JWS"),
            ("four parts", good + ".e30", Self.verifier(), "malformed", "not a compact JWS"),
            ("two parts", "\(parts[0]).\(parts[1])", Self.verifier(), "malformed", "not a compact JWS"),
            ("truncated", String(good.prefix(good.count / 2)), Self.verifier(), "malformed", "notification"),
            (
                "truncated signature", String(good.dropLast(10)), Self.verifier(), "malformed",
                "signature is not 64 bytes"
            ),
            (
                "forged chain", foreign.signedNotification(Self.refund("9103")), Self.verifier(), "chain",
                "does not verify to a trusted root"
            ),
            (
                "signature", "\(parts[0]).\(parts[1]).\(otherSignature)", Self.verifier(), "signature",
                "notification signature does not verify"
            ),
            (
                "bundle", Self.chain.signedNotification(Self.refund("9104", bundle: "com.other.app")), Self.verifier(),
                "bundle", "bundleId is com.other.app"
            ),
            (
                "transaction bundle",
                Self.chain.signedNotification(Self.refund("9105", transactionBundle: "com.other.app")),
                Self.verifier(), "bundle", "signed transaction bundleId is com.other.app"
            ),
            (
                "sandbox under reject", Self.chain.signedNotification(Self.refund("9106", environment: "Sandbox")),
                Self.verifier(sandbox: .reject), "environment", "Sandbox"
            ),
            (
                "app apple id", Self.chain.signedNotification(Self.refund("9107", appAppleId: 111)),
                Self.verifier(appAppleID: 222), "app_apple_id", "appAppleId is 111, not 222"
            ),
            (
                "app apple id absent in production", Self.chain.signedNotification(Self.refund("9108")),
                Self.verifier(appAppleID: 222), "app_apple_id", "appAppleId is absent"
            ),
            (
                "transaction forged",
                Self.chain.signedNotification(
                    AppleNotificationPayload(
                        notificationType: "REFUND",
                        signedTransactionInfo: foreign.signedTransaction(
                            SignedTransactionPayload(transactionId: "9109", productId: "gems")
                        )
                    )
                ), Self.verifier(), "chain", "does not verify to a trusted root"
            ),
        ]
        for check in cases {
            let rejection = try #require(await Self.rejection(check.jws, check.verifier), "\(check.name)")
            #expect(rejection.reason.rawValue == check.reason, "\(check.name): \(rejection)")
            #expect(rejection.description.contains(check.says), "\(check.name): \(rejection)")
            #expect(rejection.isMalformed == (check.reason == "malformed"), "\(check.name)")
        }
    }

    @Test func theSandboxPassesUnderAcceptWithoutAnAppAppleID() async throws {
        let record = try await Self.verifier(appAppleID: 222).verify(
            signedPayload: Self.chain.signedNotification(Self.refund("9201", environment: "Sandbox")),
            source: .push
        )
        #expect(record.environment == .sandbox && record.transactionID == "9201")
    }

    @Test func theChainMustBeValidAtTheNotificationsSignedDate() async throws {
        let young = try AppleTestChain.generate(notValidBefore: Date() - 3600)
        let verifier = AppleNotificationVerifier(
            jws: AppleJWSVerifier(roots: [young.root]),
            bundleID: Self.bundle,
            sandbox: .accept,
            appAppleID: nil
        )
        let old = AppleNotificationPayload(
            notificationType: "TEST",
            signedDate: SignedTransactionPayload.nowMilliseconds() - 2 * 86_400_000
        )
        let rejection = try #require(await Self.rejection(young.signedNotification(old), verifier))
        #expect(rejection.reason == .chain)
        let now = AppleNotificationPayload(notificationType: "TEST")
        #expect(await Self.rejection(young.signedNotification(now), verifier) == nil)
    }

    @Test func refusalsAreLoggedOncePerCausePerInterval() {
        let log = RefusalLog(interval: .seconds(60))
        let start = ContinuousClock.now
        #expect(log.note("apple chain", now: start) == 1)
        #expect(log.note("apple chain", now: start + .seconds(1)) == nil)
        #expect(log.note("apple bundle", now: start + .seconds(2)) == 1, "another cause has its own line")
        #expect(log.note("apple chain", now: start + .seconds(30)) == nil)
        #expect(log.note("apple chain", now: start + .seconds(61)) == 3, "the refusals since the last line")
        #expect(log.note("apple chain", now: start + .seconds(62)) == nil)
    }
}

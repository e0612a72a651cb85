import Foundation
import X509

/// Verifies an App Store Server Notification V2 (`signedPayload`, a compact JWS) and turns it into the record
/// the intake stores: the JWS as a signed transaction is verified (`AppleJWSVerifier`, at the notification's
/// `signedDate`), then its app (`bundleId`, `appAppleId`) and `environment`, wherever the payload names them (`data`,
/// `summary`, `appData`, …), then the nested `signedTransactionInfo` (and `RESCIND_CONSENT`'s
/// `signedAppTransactionInfo`) the same way. Every other notification Apple signed for this app is recorded. Used for pushed notifications and for those the catch-up reads from
/// Get Notification History.
package final class AppleNotificationVerifier: Sendable {
    private let jws: AppleJWSVerifier
    private let bundleID: String
    private let sandbox: SandboxPolicy
    private let appAppleID: Int64?

    /// Creates a verifier that trusts `jws`'s roots and accepts notifications for `bundleID` (and `appAppleID`,
    /// when set) from the environments `sandbox` allows.
    package init(jws: AppleJWSVerifier, bundleID: String, sandbox: SandboxPolicy, appAppleID: Int64?) {
        self.jws = jws
        self.bundleID = bundleID
        self.sandbox = sandbox
        self.appAppleID = appAppleID
    }

    /// Creates the verifier `settings` describe: `APPLE_ROOT_CA_FILE` (or Apple Root CA - G3), `APPLE_BUNDLE_ID`,
    /// `RECEIPTD_SANDBOX` and `APPLE_APP_ID`.
    package convenience init(settings: ReceiptdSettings) {
        self.init(storeKit: settings.storeKit, daemon: settings.daemon)
    }

    /// Creates the verifier of a daemon with these settings (the history catch-up's).
    package convenience init(storeKit: StoreKitConfiguration, daemon: ReceiptDaemon.Configuration) {
        self.init(
            jws: AppleJWSVerifier(roots: storeKit.trustedRoots),
            bundleID: daemon.expectedBundleID,
            sandbox: daemon.sandbox,
            appAppleID: storeKit.appAppleID
        )
    }

    /// The notification in `signedPayload`, once every check passed, as `source` delivered it.
    package func verify(
        signedPayload: String,
        source: StoreNotification.Source
    ) async throws(AppleNotificationRejection) -> StoreNotification {
        let notification = try await verified(
            signedPayload,
            noun: "notification",
            read: { try Payload(json: $0) },
            signedDate: \.signedDate
        )
        let app = notification.app
        guard let bundle = app.bundleID else {
            throw AppleNotificationRejection(.bundle, "notification names no bundleId")
        }
        guard bundle == bundleID else {
            throw AppleNotificationRejection(.bundle, "notification bundleId is \(bundle), not \(bundleID)")
        }
        guard let environment = app.environment.flatMap(StoreEnvironment.init(rawValue:)) else {
            throw AppleNotificationRejection(
                .environment,
                "notification environment is \(app.environment ?? "absent"), not Production or Sandbox"
            )
        }
        guard environment == .production || sandbox == .accept else {
            throw AppleNotificationRejection(.environment, "notification is from the Sandbox (RECEIPTD_SANDBOX=reject)")
        }
        // Apple leaves appAppleId out in the sandbox; one that is there must still match.
        if let appAppleID, environment == .production || app.appAppleID != nil, app.appAppleID != appAppleID {
            throw AppleNotificationRejection(
                .appAppleID,
                "notification appAppleId is \(app.appAppleID.map(String.init) ?? "absent"), not \(appAppleID)"
            )
        }
        var transactionJSON: String?
        var transaction: SignedTransaction?
        if let signed = notification.signedTransactionInfo {
            let (verified, json) = try await verified(
                signed,
                noun: "signed transaction",
                read: { data in (try SignedTransaction(json: data), try Self.storableText(data)) },
                signedDate: { $0.0.signedDate }
            )
            guard verified.bundleID == bundleID else {
                throw AppleNotificationRejection(
                    .bundle,
                    "signed transaction bundleId is \(verified.bundleID), not \(bundleID)"
                )
            }
            guard verified.environment == environment.rawValue else {
                throw AppleNotificationRejection(
                    .environment,
                    "signed transaction environment is \(verified.environment), not the notification's \(environment)"
                )
            }
            (transaction, transactionJSON) = (verified, json)
        }
        let appTransactionJSON = try await verifiedAppTransaction(notification, environment: environment)
        let payload =
            "{\"notification\":\(notification.json)" + (transactionJSON.map { ",\"transaction\":\($0)" } ?? "")
            + (appTransactionJSON.map { ",\"appTransaction\":\($0)" } ?? "") + "}"
        return StoreNotification(
            store: .apple,
            notificationID: notification.uuid,
            type: notification.type,
            subtype: notification.subtype,
            transactionID: transaction?.transactionID,
            originalTransactionID: transaction?.originalTransactionID,
            environment: environment,
            signedAt: notification.signedDate,
            source: source,
            payload: payload
        )
    }

    /// The nested `appData.signedAppTransactionInfo` (`RESCIND_CONSENT`), verified as any Apple JWS (at its
    /// `receiptCreationDate`, else the notification's `signedDate`) and checked against the app and the
    /// notification's environment, as JSON text; nil when the notification has none.
    private func verifiedAppTransaction(
        _ notification: Payload,
        environment: StoreEnvironment
    ) async throws(AppleNotificationRejection) -> String? {
        guard let signed = notification.signedAppTransactionInfo else { return nil }
        let (verified, json) = try await verified(
            signed,
            noun: "signed app transaction",
            read: { data in (try SignedAppTransaction(json: data), try Self.storableText(data)) },
            signedDate: { $0.0.signedDate ?? notification.signedDate }
        )
        guard verified.bundleID == bundleID else {
            throw AppleNotificationRejection(
                .bundle,
                "signed app transaction bundleId is \(verified.bundleID), not \(bundleID)"
            )
        }
        guard verified.environment == environment.rawValue else {
            throw AppleNotificationRejection(
                .environment,
                "signed app transaction environment is \(verified.environment), not the notification's \(environment)"
            )
        }
        return json
    }

    /// `jws`'s payload read by `read`, its failures as rejections.
    private func verified<Value>(
        _ jws: String,
        noun: String,
        read: (Data) throws -> Value,
        signedDate: (Value) -> Date
    ) async throws(AppleNotificationRejection) -> Value {
        do {
            return try await self.jws.verify(jws, noun: noun, read: read, signedDate: signedDate)
        } catch {
            let reason: AppleNotificationRejection.Reason =
                switch error.check {
                case .format: .malformed
                case .chain: .chain
                case .signature: .signature
                }
            throw AppleNotificationRejection(reason, error.description)
        }
    }

    /// The payload as UTF-8 JSON text that `jsonb` takes (it refuses `\u0000`).
    static func storableText(_ data: Data) throws(Payload.FormatError) -> String {
        // A byte search: `String.contains` goes through Foundation's slow string search on Linux.
        guard data.range(of: Data(#"\u0000"#.utf8)) == nil, let text = String(data: data, encoding: .utf8) else {
            throw Payload.FormatError(description: "is not UTF-8 JSON that PostgreSQL can store")
        }
        return text
    }
}

import Foundation

extension AppleNotificationVerifier {
    /// The fields of a notification's decoded payload (`responseBodyV2DecodedPayload`) the intake reads, and the
    /// payload's JSON text as signed.
    struct Payload {
        /// Why a payload cannot be used.
        struct FormatError: Error, CustomStringConvertible {
            /// What is wrong with it.
            var description: String
        }

        /// The app a notification is for, and where from: from `data`, else `summary`, else `appData`
        /// (`RESCIND_CONSENT`), else `externalPurchaseToken`, else the first other object of the payload that names a
        /// `bundleId` (a shape Apple adds later is still checked, and recorded).
        struct App {
            /// `bundleId`.
            var bundleID: String?
            /// `environment` (`Production`, `Sandbox`).
            var environment: String?
            /// `appAppleId`.
            var appAppleID: Int64?
        }

        /// `notificationUUID`.
        var uuid: String
        /// `notificationType`.
        var type: String
        /// `subtype`.
        var subtype: String?
        /// `signedDate`: when Apple signed it, the instant the chain must be valid at.
        var signedDate: Date
        /// The app the notification is for.
        var app: App
        /// `data.signedTransactionInfo`, when there is one.
        var signedTransactionInfo: String?
        /// `appData.signedAppTransactionInfo`, when there is one.
        var signedAppTransactionInfo: String?
        /// The payload as signed, as JSON text.
        var json: String

        /// Reads a payload.
        init(json data: Data) throws(FormatError) {
            guard let object = try? JSONSerialization.jsonObject(with: data), let fields = object as? [String: Any]
            else {
                throw FormatError(description: "not a JSON object")
            }
            func string(_ key: String) throws(FormatError) -> String {
                guard let value = fields[key] as? String, !value.isEmpty else {
                    throw FormatError(description: "\(key) is missing")
                }
                return value
            }
            uuid = try string("notificationUUID")
            type = try string("notificationType")
            subtype = (fields["subtype"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            guard let signed = FlexibleJSON.integer(fields["signedDate"]), signed >= 0 else {
                throw FormatError(description: "signedDate is missing")
            }
            signedDate = Date(timeIntervalSince1970: Double(signed) / 1000)
            let body = fields["data"] as? [String: Any]
            signedTransactionInfo = (body?["signedTransactionInfo"] as? String).flatMap { $0.isEmpty ? nil : $0 }
            let appData = fields["appData"] as? [String: Any]
            signedAppTransactionInfo = (appData?["signedAppTransactionInfo"] as? String).flatMap {
                $0.isEmpty ? nil : $0
            }
            if let source = body ?? fields["summary"] as? [String: Any] ?? appData {
                app = App(source)
            } else if let token = fields["externalPurchaseToken"] as? [String: Any] {
                // Apple's own library tells a sandbox token by its id's prefix.
                let sandbox = (token["externalPurchaseId"] as? String)?.hasPrefix("SANDBOX") ?? false
                app = App(
                    bundleID: token["bundleId"] as? String,
                    environment: sandbox ? StoreEnvironment.sandbox.rawValue : StoreEnvironment.production.rawValue,
                    appAppleID: FlexibleJSON.integer(token["appAppleId"])
                )
            } else if let source = fields.keys.sorted().lazy.compactMap({ fields[$0] as? [String: Any] })
                .first(where: { $0["bundleId"] is String })
            {
                app = App(source)
            } else {
                app = App()
            }
            json = try AppleNotificationVerifier.storableText(data)
        }
    }
}

extension AppleNotificationVerifier.Payload.App {
    /// The app an object of the payload (`data`, `summary`, `appData`) names.
    init(_ fields: [String: Any]) {
        self.init(
            bundleID: fields["bundleId"] as? String,
            environment: fields["environment"] as? String,
            appAppleID: FlexibleJSON.integer(fields["appAppleId"])
        )
    }
}

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

        /// The app a notification is for, and where from: from `data`, else `summary`, else `externalPurchaseToken`.
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
            if let source = body ?? fields["summary"] as? [String: Any] {
                app = App(
                    bundleID: source["bundleId"] as? String,
                    environment: source["environment"] as? String,
                    appAppleID: FlexibleJSON.integer(source["appAppleId"])
                )
            } else if let token = fields["externalPurchaseToken"] as? [String: Any] {
                // Apple's own library tells a sandbox token by its id's prefix.
                let sandbox = (token["externalPurchaseId"] as? String)?.hasPrefix("SANDBOX") ?? false
                app = App(
                    bundleID: token["bundleId"] as? String,
                    environment: sandbox ? StoreEnvironment.sandbox.rawValue : StoreEnvironment.production.rawValue,
                    appAppleID: FlexibleJSON.integer(token["appAppleId"])
                )
            } else {
                app = App()
            }
            json = try AppleNotificationVerifier.storableText(data)
        }
    }
}

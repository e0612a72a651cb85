import Foundation

extension ReceiptdSettings {
    /// `GOOGLE_SERVICE_ACCOUNT_FILE`, `GOOGLE_PLAY_PACKAGE_NAME`, `GOOGLE_PLAY_API_URL`, `GOOGLE_PLAY_FINALIZE`,
    /// `GOOGLE_PLAY_VOIDED_INTERVAL`, `GOOGLE_PLAY_FINALIZE_OVERDUE`, `GOOGLE_PLAY_ORDER_AMOUNTS`, and the push intake's `GOOGLE_OIDC_CERTS_URL`,
    /// `GOOGLE_PUBSUB_AUDIENCE`, `GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL`. A key file that cannot be read only makes
    /// Google jobs wait (it may appear later, say a credential mounted late); one that is read but malformed
    /// stops the daemon. The key never reaches a message.
    static func googlePlay(_ reader: EnvironmentReader) throws(ConfigurationError) -> GooglePlayConfiguration {
        var google = GooglePlayConfiguration()
        if let path = reader.string("GOOGLE_SERVICE_ACCOUNT_FILE") {
            if let data = FileManager.default.contents(atPath: path) {
                do {
                    google.serviceAccount = try GoogleServiceAccount(json: data)
                } catch {
                    throw ConfigurationError(variable: "GOOGLE_SERVICE_ACCOUNT_FILE", problem: "\"\(path)\" \(error)")
                }
            } else {
                google.problem =
                    "GOOGLE_SERVICE_ACCOUNT_FILE: cannot read \"\(path)\"; Google Play jobs wait until it can be read and receiptd restarts"
            }
        }
        google.packageName = reader.string("GOOGLE_PLAY_PACKAGE_NAME")
        google.apiURL = try reader.url("GOOGLE_PLAY_API_URL") ?? google.apiURL
        google.finalize = try reader.choice("GOOGLE_PLAY_FINALIZE", GoogleFinalizeAction.self) ?? google.finalize
        // A subscription's acknowledgement follows from its kind, never from the setting.
        if google.finalize == .acknowledgeSubscription {
            throw ConfigurationError(
                variable: "GOOGLE_PLAY_FINALIZE",
                problem: "\"acknowledge_subscription\" is not one of acknowledge, consume, none"
            )
        }
        google.voidedInterval =
            try reader.duration("GOOGLE_PLAY_VOIDED_INTERVAL", maximum: Bounds.voidedInterval) ?? google.voidedInterval
        google.finalizeOverdue =
            try reader.duration("GOOGLE_PLAY_FINALIZE_OVERDUE", maximum: Bounds.finalizeOverdue)
            ?? google.finalizeOverdue
        google.orderAmounts =
            try reader.choice("GOOGLE_PLAY_ORDER_AMOUNTS", GoogleOrderAmounts.self) ?? google.orderAmounts
        google.oidcCertsURL = try reader.url("GOOGLE_OIDC_CERTS_URL") ?? google.oidcCertsURL
        google.pubsubAudience = reader.string("GOOGLE_PUBSUB_AUDIENCE")
        google.pubsubServiceAccountEmail = reader.string("GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL")
        return google
    }
}

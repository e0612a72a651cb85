extension ReceiptdSettings {
    /// `APPLE_ROOT_CA_FILE`, `APPLE_RECEIPT_ROOT_CA_FILE`, the Server API key and endpoints, `APPLE_SERVER_API_RATE`, `RECEIPTD_RECEIPT_VERIFIER`,
    /// `RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN`, `APPLE_APP_ID`,
    /// `APPLE_NOTIFICATION_HISTORY_INTERVAL`.
    static func storeKit(_ reader: EnvironmentReader) throws(ConfigurationError) -> StoreKitConfiguration {
        var storeKit = StoreKitConfiguration()
        if let pem = try reader.secretFile("APPLE_ROOT_CA_FILE") {
            do {
                storeKit.trustedRoots = try AppleRootCertificates.certificates(pem: pem)
            } catch {
                throw ConfigurationError(variable: "APPLE_ROOT_CA_FILE", problem: "holds no readable PEM certificate")
            }
        }
        if let pem = try reader.secretFile("APPLE_RECEIPT_ROOT_CA_FILE") {
            do {
                storeKit.receiptRoots = try AppleRootCertificates.certificates(pem: pem)
            } catch {
                throw ConfigurationError(
                    variable: "APPLE_RECEIPT_ROOT_CA_FILE",
                    problem: "holds no readable PEM certificate"
                )
            }
        }
        storeKit.credentials = try credentials(reader)
        storeKit.serverAPIURL = try reader.url("APPLE_SERVER_API_URL") ?? storeKit.serverAPIURL
        storeKit.serverAPISandboxURL = try reader.url("APPLE_SERVER_API_SANDBOX_URL") ?? storeKit.serverAPISandboxURL
        storeKit.serverAPIRate =
            try reader.integer("APPLE_SERVER_API_RATE", minimum: 1, maximum: Bounds.serverAPIRate)
            ?? storeKit.serverAPIRate
        storeKit.receiptVerifier =
            try reader.choice("RECEIPTD_RECEIPT_VERIFIER", ReceiptVerifierChoice.self) ?? storeKit.receiptVerifier
        storeKit.transactionIDWithoutToken =
            try reader.choice("RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN", TransactionIDTokenPolicy.self)
            ?? storeKit.transactionIDWithoutToken
        if let text = reader.string("APPLE_APP_ID") {
            guard let id = Int64(text.trimmingCharacters(in: .whitespaces)), id > 0 else {
                throw ConfigurationError(
                    variable: "APPLE_APP_ID",
                    problem: "\"\(text)\" is not an app's Apple ID (a positive number, App Store Connect's Apple ID)"
                )
            }
            storeKit.appAppleID = id
        }
        storeKit.notificationHistoryInterval =
            try reader.duration("APPLE_NOTIFICATION_HISTORY_INTERVAL", maximum: Bounds.notificationHistoryInterval)
            ?? storeKit.notificationHistoryInterval
        // Refused at start rather than leaving every receipt job retrying for a key.
        if storeKit.receiptVerifier == .serverAPI && storeKit.credentials == nil {
            throw ConfigurationError(
                variable: "RECEIPTD_RECEIPT_VERIFIER",
                problem:
                    "server_api needs the App Store Server API key: set APPLE_ISSUER_ID, APPLE_KEY_ID and APPLE_PRIVATE_KEY_FILE"
            )
        }
        return storeKit
    }

    /// The three key settings come together or not at all; the key file's contents never reach a message.
    private static func credentials(_ reader: EnvironmentReader) throws(ConfigurationError) -> ServerAPICredentials? {
        let names = ["APPLE_ISSUER_ID", "APPLE_KEY_ID", "APPLE_PRIVATE_KEY_FILE"]
        let given = names.filter { reader.string($0) != nil }
        guard !given.isEmpty else { return nil }
        if let missing = names.first(where: { reader.string($0) == nil }) {
            throw ConfigurationError(
                variable: missing,
                problem: "is required with \(given.joined(separator: " and ")): "
                    + "the App Store Server API needs the issuer id, the key id and the .p8 key file together"
            )
        }
        let pem = try reader.secretFile("APPLE_PRIVATE_KEY_FILE")!
        guard
            let credentials = ServerAPICredentials(
                issuerID: reader.string("APPLE_ISSUER_ID")!,
                keyID: reader.string("APPLE_KEY_ID")!,
                pem: pem
            )
        else {
            throw ConfigurationError(
                variable: "APPLE_PRIVATE_KEY_FILE",
                problem: "is not a PKCS#8 P-256 private key in PEM (the .p8 file App Store Connect gives)"
            )
        }
        return credentials
    }
}

import FakeAppStore
import Foundation

/// What a daemon process needs to verify StoreKit 2 jobs against a stand-in: its root certificates (signed
/// transactions', app receipts') and an App Store Connect key it accepts, written to a private directory, and the
/// variables that name them.
package struct StoreKitFiles {
    /// The private directory the files are in.
    package let directory: String
    /// The stand-in they are for.
    package let standIn: AppStoreStandIn

    /// Writes the stand-in's root and `key` (the key the stand-in checks bearers against).
    package init(standIn: AppStoreStandIn, key: ServerAPITestKey) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-storekit-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(
            atPath: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        self.standIn = standIn
        try standIn.testChain.writeRoot(toFile: directory + "/root.pem")
        try standIn.receiptChain.writeRoot(toFile: directory + "/receipt-root.pem")
        try key.write(toFile: directory + "/key.p8")
    }

    /// `APPLE_ROOT_CA_FILE`, `APPLE_RECEIPT_ROOT_CA_FILE`, the three key settings and the Server API URLs.
    package var environment: [String: String] {
        [
            "APPLE_ROOT_CA_FILE": directory + "/root.pem",
            "APPLE_RECEIPT_ROOT_CA_FILE": directory + "/receipt-root.pem",
            "APPLE_PRIVATE_KEY_FILE": directory + "/key.p8",
            "APPLE_ISSUER_ID": AppStoreStandIn.Configuration.defaultServerAPIIssuerID,
            "APPLE_KEY_ID": AppStoreStandIn.Configuration.defaultServerAPIKeyID,
            "APPLE_SERVER_API_URL": standIn.serverAPIURL, "APPLE_SERVER_API_SANDBOX_URL": standIn.serverAPISandboxURL,
        ]
    }

    /// Deletes the files.
    package func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

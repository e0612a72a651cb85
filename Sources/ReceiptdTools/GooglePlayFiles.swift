import FakeAppStore
import Foundation

/// What a daemon process needs to verify Google Play jobs against a stand-in: the service-account key the
/// stand-in made, written to a private directory, and the variables that name it and the stand-in.
struct GooglePlayFiles {
    let directory: String
    let standIn: GooglePlayStandIn

    /// Writes the stand-in's service-account key (after `start()`, so its token URI has the port).
    init(standIn: GooglePlayStandIn) throws {
        directory =
            FileManager.default.temporaryDirectory.appendingPathComponent("receiptd-googleplay-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(
            atPath: directory,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
        self.standIn = standIn
        try standIn.writeServiceAccount(toFile: directory + "/service-account.json")
    }

    /// `GOOGLE_SERVICE_ACCOUNT_FILE`, `GOOGLE_PLAY_PACKAGE_NAME`, `GOOGLE_PLAY_API_URL`.
    var environment: [String: String] {
        [
            "GOOGLE_SERVICE_ACCOUNT_FILE": directory + "/service-account.json",
            "GOOGLE_PLAY_PACKAGE_NAME": standIn.packageName,
            "GOOGLE_PLAY_API_URL": standIn.baseURL,
        ]
    }

    /// Deletes the files.
    func remove() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

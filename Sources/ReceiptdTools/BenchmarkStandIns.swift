import FakeAppStore
import Logging

/// Both stores' stand-ins in the benchmark process, quiet, for the daemons of the rows at a successful game's size.
enum BenchmarkStandIns {
    /// Starts both stand-ins and the files a daemon needs to reach them (a Server API key, a service account), runs
    /// `body` with them and the daemon's settings for both, then shuts the stand-ins down, whatever `body` did.
    static func with<T>(
        appStore: AppStoreStandIn.Configuration = .init(),
        googlePlay: GooglePlayStandIn.Configuration = .init(),
        _ body: (AppStoreStandIn, GooglePlayStandIn, _ environment: [String: String]) async throws -> T
    ) async throws -> T {
        let quiet = { (label: String) in Logger(label: label, factory: { _ in SwiftLogNoOpLogHandler() }) }
        let standIn = AppStoreStandIn(configuration: appStore, logger: quiet("fake-appstore"))
        _ = try await standIn.start()
        let google = GooglePlayStandIn(configuration: googlePlay, logger: quiet("fake-googleplay"))
        do {
            _ = try await google.start()
            let storeKit = try StoreKitFiles(standIn: standIn, key: .generate())
            defer { storeKit.remove() }
            let files = try GooglePlayFiles(standIn: google)
            defer { files.remove() }
            let result = try await body(standIn, google, storeKit.environment.merging(files.environment) { $1 })
            try await google.shutdown()
            try await standIn.shutdown()
            return result
        } catch {
            try? await google.shutdown()
            try? await standIn.shutdown()
            throw error
        }
    }
}

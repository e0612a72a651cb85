import FakeAppStore
import Foundation
import Logging
import ReceiptdCore

extension Fixture {
    /// A fixture with a stand-in Google Play beside it, and daemon settings that point at it.
    static func withGooglePlayStandIn(
        _ configuration: GooglePlayStandIn.Configuration = .init(),
        settings adjust: @escaping (inout ReceiptdSettings) -> Void = { _ in },
        _ body: (Fixture, GooglePlayStandIn, ReceiptdSettings) async throws -> Void
    ) async throws {
        try await Fixture.with { f in
            let google = GooglePlayStandIn(
                configuration: configuration,
                logger: Logger(label: "fake-googleplay", factory: { _ in SwiftLogNoOpLogHandler() })
            )
            _ = try await google.start()
            let settings = f.settings {
                $0.googlePlay.serviceAccount = try? GoogleServiceAccount(
                    json: Data(google.serviceAccount.json(tokenURI: google.tokenURL).utf8)
                )
                $0.googlePlay.packageName = configuration.packageName
                $0.googlePlay.apiURL = google.baseURL
                adjust(&$0)
            }
            do {
                try await body(f, google, settings)
            } catch {
                try? await google.shutdown()
                throw error
            }
            try await google.shutdown()
        }
    }

    /// `iap.enqueue_google_purchase` of `token` for one unit.
    func enqueue(
        _ order: String,
        user: String = "u1",
        product: String = "gems",
        googleToken token: SyntheticPurchaseToken
    ) async throws {
        try await connection.execute(
            "SELECT iap.enqueue_google_purchase($1, $2, $3, $4, $5, $6)",
            [order, user, product, token.encoded(), 1, String?.none]
        )
    }
}

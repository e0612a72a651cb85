import Testing

@testable import ReceiptdCore

/// The rate each endpoint is paced at, derived from `APPLE_SERVER_API_RATE` as Apple's "Identifying rate limits" sets
/// them: Set App Account Token 20 of the others' 50, the sandbox a tenth of production.
@Suite struct AppStoreServerEndpointTests {
    @Test func setAppAccountTokenIsTwoFifthsAndTheSandboxATenth() {
        for endpoint in AppStoreServerEndpoint.allCases where endpoint != .appAccountToken {
            #expect(endpoint.rate(configured: 50, in: .production) == 50)
            #expect(endpoint.rate(configured: 50, in: .sandbox) == 5)
        }
        #expect(AppStoreServerEndpoint.appAccountToken.rate(configured: 50, in: .production) == 20)
        #expect(AppStoreServerEndpoint.appAccountToken.rate(configured: 50, in: .sandbox) == 2)
        // A low setting stays above zero: the slots are only further apart.
        #expect(AppStoreServerEndpoint.appAccountToken.rate(configured: 1, in: .sandbox) == 0.04)
    }

    /// The names are the `iap.api_pacing` rows' (a public contract).
    @Test func theNamesAreTheContracts() {
        #expect(
            AppStoreServerEndpoint.allCases.map(\.rawValue) == [
                "apple_transaction_info", "apple_transaction_history", "apple_subscription_statuses",
                "apple_consumption", "apple_app_account_token", "apple_notification_history",
            ]
        )
    }
}

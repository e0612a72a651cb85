import Foundation

extension ServerAPIClient {
    /// Get All Subscription Statuses (`GET /inApps/v1/subscriptions/{transactionId}`) in `environment`: a 200's body
    /// (`AppleSubscriptionStatuses`), or the verdict the request earns.
    func subscriptionStatuses(
        originalTransactionID: String,
        environment: StoreEnvironment
    ) async -> ServerAPIOutcome {
        await get(
            environment,
            .subscriptionStatuses,
            path: "/inApps/v1/subscriptions/" + Self.pathSegment(originalTransactionID)
        )
    }
}

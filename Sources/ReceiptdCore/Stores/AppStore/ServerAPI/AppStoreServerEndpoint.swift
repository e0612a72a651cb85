/// An App Store Server API endpoint receiptd calls. Apple limits each endpoint's requests on its own ("Identifying
/// rate limits"), so each has its own pacing and its own `Retry-After` block: the `iap.api_pacing` row named by the
/// raw value, which `receiptd status`, `iap.stuck_jobs` and the metrics' `api` label show.
package enum AppStoreServerEndpoint: String, Sendable, CaseIterable {
    /// Get Transaction Info: transaction-id purchases, and the sandbox question after production's "not found".
    case transactionInfo = "apple_transaction_info"
    /// Get Transaction History: receipts under `server_api`, and a subscription's missed renewals.
    case transactionHistory = "apple_transaction_history"
    /// Get All Subscription Statuses: the subscription reads.
    case subscriptionStatuses = "apple_subscription_statuses"
    /// Send Consumption Information: the answers to consumption requests.
    case consumption = "apple_consumption"
    /// Set App Account Token.
    case appAccountToken = "apple_app_account_token"
    /// Get Notification History: the catch-up of missed notifications.
    case notificationHistory = "apple_notification_history"

    /// Requests per second this endpoint is paced at in `environment`, from `APPLE_SERVER_API_RATE` (`configured`,
    /// the rate of the endpoints Apple allows most, 50 a second in production). Apple allows Set App Account Token
    /// 20 of those 50 (two fifths), and the sandbox a tenth of production's.
    func rate(configured: Int, in environment: StoreEnvironment) -> Double {
        let production = self == .appAccountToken ? Double(configured) * 2 / 5 : Double(configured)
        return environment == .sandbox ? production / 10 : production
    }
}

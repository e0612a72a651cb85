/// Which App Store Server API endpoint a call went to.
package enum ServerAPIEndpoint: String, Sendable, Equatable {
    /// `GET /inApps/v1/transactions/{id}`, Get Transaction Info.
    case transactionInfo
    /// `GET /inApps/v2/history/{id}`, Get Transaction History v2.
    case transactionHistory
    /// `GET /inApps/v1/subscriptions/{id}`, Get All Subscription Statuses.
    case subscriptionStatuses
}

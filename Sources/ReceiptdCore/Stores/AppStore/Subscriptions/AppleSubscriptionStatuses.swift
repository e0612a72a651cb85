/// Get All Subscription Statuses' answer (`GET /inApps/v1/subscriptions/{transactionId}`): per subscription group,
/// the latest transaction of each subscription in it, still signed.
package struct AppleSubscriptionStatuses: Sendable, Equatable, Decodable {
    /// One subscription group.
    package struct Group: Sendable, Equatable, Decodable {
        /// `subscriptionGroupIdentifier`.
        package var subscriptionGroupIdentifier: String?
        /// `lastTransactions`: one per subscription of the group.
        package var lastTransactions: [Last]
    }

    /// A subscription's status and its latest signed transaction and renewal info.
    package struct Last: Sendable, Equatable, Decodable {
        /// 1 active, 2 expired, 3 billing retry, 4 grace period, 5 revoked.
        package var status: Int
        /// The subscription.
        package var originalTransactionId: String
        /// The latest transaction, a JWS.
        package var signedTransactionInfo: String
        /// The renewal info, a JWS.
        package var signedRenewalInfo: String?
    }

    /// `environment`.
    package var environment: String?
    /// `bundleId`.
    package var bundleId: String?
    /// `data`.
    package var data: [Group]
}

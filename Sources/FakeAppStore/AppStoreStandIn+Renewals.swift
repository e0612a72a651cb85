/// Subscriptions the stand-in did not sell, served renewed: a seeded database's, for the benchmark's lost
/// renewals (issue #48, item 5), whose news never comes, so that only receiptd's re-read finds them.
extension AppStoreStandIn {
    /// From now on Get All Subscription Statuses answers each subscription of `renewed` (its current period's
    /// transaction, naming the original) as active and renewing, that transaction its latest.
    package func registerRenewed(_ renewed: [SignedTransactionPayload]) {
        subscriptionBook.register(renewed: renewed)
    }
}

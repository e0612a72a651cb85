/// Subscriptions the stand-in did not sell, served renewed: a seeded database's, for the benchmark's renewal storm
/// (issue #48). Each is held by its token until the stand-in goes; nothing is pushed here (the caller prepares the
/// pushes, so that none is signed while the storm is timed).
extension GooglePlayStandIn {
    /// From now on `purchases.subscriptionsv2.get` answers each token of `subscriptions` with its subscription
    /// renewed once more (see ``GoogleRenewedSubscription``).
    package func registerRenewed(_ subscriptions: [GoogleRenewedSubscription]) {
        subscriptionBook.register(subscriptions)
    }

    /// The `purchases.subscriptionsv2.get` calls received so far, refused ones too.
    package func subscriptionReads() -> Int {
        ledger.queries.reduce(0) { $0 + ($1.productID == "subscriptionsv2" ? 1 : 0) }
    }
}

/// A subscription the stand-in did not sell (a seeded database's), registered with
/// ``GooglePlayStandIn/registerRenewed(_:)`` so that `purchases.subscriptionsv2.get` of its token answers it renewed
/// once more: active, auto-renewing, acknowledged, its latest order the period after the ones paid before.
package struct GoogleRenewedSubscription: Sendable, Equatable {
    /// Its purchase token.
    package var token: String
    /// Its product id (the line item's).
    package var productID: String
    /// Its first order (`GPA.…`); the renewals are `…..0`, `…..1`, ….
    package var firstOrderID: String
    /// Periods it paid before this renewal, the first one included.
    package var periodsBefore: Int
    /// When it began (`startTime`), milliseconds since 1970.
    package var startMilliseconds: Int64
    /// When the renewed period ends (`lineItems[0].expiryTime`), milliseconds since 1970.
    package var expiryMilliseconds: Int64

    /// Creates one.
    package init(
        token: String,
        productID: String,
        firstOrderID: String,
        periodsBefore: Int,
        startMilliseconds: Int64,
        expiryMilliseconds: Int64
    ) {
        self.token = token
        self.productID = productID
        self.firstOrderID = firstOrderID
        self.periodsBefore = periodsBefore
        self.startMilliseconds = startMilliseconds
        self.expiryMilliseconds = expiryMilliseconds
    }

    /// The order of the renewed period: `<first order>..<periodsBefore - 1>`.
    package var orderID: String { "\(firstOrderID)..\(max(periodsBefore, 1) - 1)" }
}

/// What happens to a stand-in Google Play subscription (``GooglePlayStandIn/changeSubscription(_:_:notify:)``),
/// and the real-time notification Google sends for it.
package enum GoogleSubscriptionChange: Sendable, Equatable {
    /// A new period is paid (order `…..n`): `SUBSCRIPTION_RENEWED` (2).
    case renew
    /// A renewal's payment fails: into its grace period for `graceSeconds` (`SUBSCRIPTION_IN_GRACE_PERIOD`, 6), or
    /// straight on hold without one (`SUBSCRIPTION_ON_HOLD`, 5).
    case failRenewal(graceSeconds: Double?)
    /// The grace period ends unpaid: on hold (5).
    case endGracePeriod
    /// The failed payment goes through: a new period (`SUBSCRIPTION_RECOVERED`, 1).
    case recover
    /// The player pauses it (`SUBSCRIPTION_PAUSED`, 10).
    case pause
    /// The pause ends: a new period (`SUBSCRIPTION_RENEWED`, 2).
    case resume
    /// The player cancels: no renewal, the service lasts until the period ends (`SUBSCRIPTION_CANCELED`, 3).
    case cancel
    /// The player resubscribes before it ends (`SUBSCRIPTION_RESTARTED`, 7).
    case restart
    /// It ends (`SUBSCRIPTION_EXPIRED`, 13).
    case expire
    /// Refunded and ended by the developer or Google (`SUBSCRIPTION_REVOKED`, 12): its latest period is voided.
    case revoke
    /// A pending purchase is paid (`SUBSCRIPTION_PURCHASED`, 4).
    case completePending
    /// A pending purchase is cancelled before it is paid (`SUBSCRIPTION_PENDING_PURCHASE_CANCELED`, 20).
    case cancelPending

    /// `subscriptionNotification.notificationType`.
    package var notificationType: Int {
        switch self {
        case .renew, .resume: 2
        case .failRenewal(let grace): grace == nil ? 5 : 6
        case .endGracePeriod: 5
        case .recover: 1
        case .pause: 10
        case .cancel: 3
        case .restart: 7
        case .expire: 13
        case .revoke: 12
        case .completePending: 4
        case .cancelPending: 20
        }
    }
}

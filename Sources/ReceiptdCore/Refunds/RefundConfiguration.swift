/// How refund requests are answered when the game is silent: `RECEIPTD_REFUND_GAME_WAIT`,
/// `RECEIPTD_REFUND_PREFERENCE`, `RECEIPTD_REFUND_DECLINE_FROM`, `RECEIPTD_SAMPLE_CONTENT_PROVIDED` and
/// `RECEIPTD_REFUND_ABUSE_LIMIT`.
package struct RefundConfiguration: Sendable, Equatable {
    /// How long the game has to answer before the policy does (at the latest two hours before the store's
    /// deadline).
    package var gameWait: Duration = .seconds(3600)
    /// The preference the policy gives for goods delivered and granted.
    package var preference = RefundPolicyChoice.none
    /// With `auto`: reported consumption from which the policy declines, in thousandths of a percent.
    package var declineFrom = 50_000
    /// Whether the app offers a free sample or trial of what it sells (`sampleContentProvided`).
    package var sampleContentProvided = false
    /// Refunds in 90 days from which `auto` declines a player's requests; 0 turns it off.
    package var abuseLimit = 3

    /// Creates the defaults above.
    package init() {}
}

/// `RECEIPTD_REFUND_PREFERENCE` (or its old name `APPLE_REFUND_PREFERENCE`): the preference the policy gives for
/// goods delivered and granted.
package enum RefundPolicyChoice: String, Sendable, CaseIterable {
    /// No preference (the default): the store decides on the facts.
    case none
    /// Decline from `RECEIPTD_REFUND_DECLINE_FROM` consumed or at the refund limit; prorate a smaller consumption;
    /// otherwise no preference.
    case auto
    /// Always decline.
    case decline
    /// Always grant in full.
    case grantFull = "grant_full"
}

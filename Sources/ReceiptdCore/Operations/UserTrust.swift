/// What `receiptd trust USER` shows: a player's level in one store (`iap.trust_of`), the recorded row or the store's
/// initial level. Encoded with every key present (`null` for what is unknown), so that scripts see one shape.
package struct UserTrust: Sendable, Encodable, Equatable {
    /// The player.
    package var userID: String
    /// The store the level is for.
    package var store: Store
    /// `trusted` or `untrusted`.
    package var level: TrustLevel
    /// Orders verified in a row while untrusted (trust returns at `RECEIPTD_TRUST_RESTORE_AFTER`).
    package var streak: Int
    /// When the level last changed (ISO-8601, UTC); `nil` without a row.
    package var changedAt: String?
    /// Why: `initial`, `invalid`, `foreign_transaction`, `replay`, `provisional_refuted`, `restored`, or
    /// `operator: <name>`; `nil` without a row.
    package var reason: String?
    /// The order whose verification changed it last; `nil` for an operator's setting or without a row.
    package var orderID: String?
    /// True while the player has the store's initial level (`RECEIPTD_TRUST_INITIAL_APPLE`/`_GOOGLE`): no row yet,
    /// or a row that only counts the streak of a player untrusted from the start.
    package var initial: Bool
    /// The player's provisional grants in this store that verification has not confirmed or refuted yet.
    package var unconfirmedGrants: Int

    private enum CodingKeys: String, CodingKey {
        case userID, store, level, trusted, streak, changedAt, reason, orderID, initial, unconfirmedGrants
    }

    /// Creates the level of `userID` in `store`.
    package init(
        userID: String,
        store: Store,
        level: TrustLevel,
        streak: Int,
        changedAt: String?,
        reason: String?,
        orderID: String?,
        initial: Bool,
        unconfirmedGrants: Int
    ) {
        self.userID = userID
        self.store = store
        self.level = level
        self.streak = streak
        self.changedAt = changedAt
        self.reason = reason
        self.orderID = orderID
        self.initial = initial
        self.unconfirmedGrants = unconfirmedGrants
    }

    /// Every key, `null` included, and `trusted` beside `level` like the column.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(userID, forKey: .userID)
        try container.encode(store, forKey: .store)
        try container.encode(level, forKey: .level)
        try container.encode(level.isTrusted, forKey: .trusted)
        try container.encode(streak, forKey: .streak)
        try container.encode(changedAt, forKey: .changedAt)
        try container.encode(reason, forKey: .reason)
        try container.encode(orderID, forKey: .orderID)
        try container.encode(initial, forKey: .initial)
        try container.encode(unconfirmedGrants, forKey: .unconfirmedGrants)
    }
}

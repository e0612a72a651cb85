/// A player's level in one store (`iap.user_trust.trusted`): a trusted player's order may be granted provisionally
/// while the store fails; an untrusted player's waits for verification.
package enum TrustLevel: String, Sendable, Equatable, CaseIterable, Codable {
    /// Provisional grants allowed.
    case trusted
    /// Every order waits for verification.
    case untrusted

    /// The level `trusted` (the column's value) stands for.
    package init(trusted: Bool) { self = trusted ? .trusted : .untrusted }

    /// The value of `iap.user_trust.trusted`.
    package var isTrusted: Bool { self == .trusted }
}

/// A job whose store is not configured (no App Store Server API key, no Google Play service account): the one
/// rule for every store. It waits, using up no attempt, with a `last_error` that names what to set, and
/// `receiptd status` counts such jobs by that wording.
enum StoreNotConfigured {
    /// How long such a job waits before it is looked at again (settings change only with a restart).
    static let wait: Duration = .seconds(60)

    /// The words every such `last_error` holds, which `receiptd status` counts by.
    static let marker = " is not configured: "

    /// The postponed attempt of a job that needs `store` (as the reason names it, e.g. "the App Store Server API"),
    /// with `remedy` saying what to set.
    static func attempt(_ store: String, remedy: String) -> VerificationAttempt {
        VerificationAttempt(verdict: .postpone(after: wait, reason: store + marker + remedy), calledStore: false)
    }
}

/// Google Play settings: the service account, the app's package, the API, what to tell Google after delivery,
/// and how often to look for voided purchases.
package struct GooglePlayConfiguration: Sendable {
    /// `GOOGLE_SERVICE_ACCOUNT_FILE`, read at start; `nil` when unset or unreadable (see `unavailable`).
    package var serviceAccount: GoogleServiceAccount? = nil
    /// `GOOGLE_PLAY_PACKAGE_NAME`.
    package var packageName: String? = nil
    /// `GOOGLE_PLAY_API_URL`.
    package var apiURL = "https://androidpublisher.googleapis.com"
    /// `GOOGLE_PLAY_FINALIZE`.
    package var finalize: GoogleFinalizeAction = .acknowledge
    /// `GOOGLE_PLAY_VOIDED_INTERVAL`: how often one daemon polls `voidedpurchases.list`.
    package var voidedInterval: Duration = .seconds(600)
    /// `GOOGLE_PLAY_FINALIZE_OVERDUE`: an acknowledgement still owed this long after delivery shows in
    /// `iap.stuck_jobs` and the `receiptd_google_finalizations_overdue` gauge.
    package var finalizeOverdue: Duration = .seconds(3600)
    /// Why Google jobs cannot run now although the settings are there (the key file unreadable): what to do,
    /// for `last_error`. Computed from the fields unless set.
    package var problem: String? = nil

    /// Creates a configuration with the defaults above.
    package init() {}

    /// Why Google jobs must wait, as what to do (the rest of "Google Play is not configured: …"), or `nil` when
    /// they can run.
    var unavailable: String? {
        if let problem { return problem }
        if serviceAccount == nil { return "set GOOGLE_SERVICE_ACCOUNT_FILE" }
        if packageName == nil { return "set GOOGLE_PLAY_PACKAGE_NAME" }
        return nil
    }
}

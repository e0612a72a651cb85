/// Google Play settings: the service account, the app's package, the API, what to tell Google after delivery,
/// how often to look for voided purchases, and whose pushes (real-time developer notifications) to take.
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
    /// `GOOGLE_PLAY_ORDER_AMOUNTS`: whether each verified purchase's price and currency are asked of `orders.get`.
    package var orderAmounts: GoogleOrderAmounts = .off
    /// `GOOGLE_OIDC_CERTS_URL`: Google's published keys (JWKS) the push intake checks OIDC tokens with.
    package var oidcCertsURL = "https://www.googleapis.com/oauth2/v3/certs"
    /// `GOOGLE_PUBSUB_AUDIENCE`: the `aud` a push's OIDC token must carry (the push subscription's audience).
    package var pubsubAudience: String? = nil
    /// `GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL`: the `email` a push's OIDC token must carry (the push
    /// subscription's service account).
    package var pubsubServiceAccountEmail: String? = nil
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

    /// Why Google pushes are refused, as what to set, or `nil` when the intake can check them.
    var pushUnavailable: String? {
        if pubsubAudience == nil { return "set GOOGLE_PUBSUB_AUDIENCE" }
        if pubsubServiceAccountEmail == nil { return "set GOOGLE_PUBSUB_SERVICE_ACCOUNT_EMAIL" }
        return nil
    }
}

/// `GOOGLE_PLAY_ORDER_AMOUNTS`: whether the ledger's `price` and `currency` of a Google purchase are asked of the
/// Orders API (`orders.get`), one more call per purchase that counts against the same Play Developer API quota.
package enum GoogleOrderAmounts: String, Sendable, CaseIterable {
    /// Prices stay empty (the default): no call beyond the purchase lookup.
    case off
    /// Each purchase's order is asked for its amount; a refusal leaves them empty and never holds a delivery.
    case on
}

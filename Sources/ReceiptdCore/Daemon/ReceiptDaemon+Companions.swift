import Logging
import ServiceLifecycle

extension ReceiptDaemon {
    /// The long-running parts beside the daemon (``companions``), made from its settings, its store clients and
    /// the doorbells its listener rings.
    static func makeCompanions(
        queue: PostgresJobQueue,
        configuration: Configuration,
        storeKit: StoreKitConfiguration,
        googlePlay: GooglePlayConfiguration,
        trust: TrustConfiguration,
        webhooks: WebhookConfiguration?,
        clients: (serverAPI: ServerAPIClient?, google: GooglePlayClient?),
        doorbells: (storeNotifications: Doorbell, googleLookups: Doorbell, webhookEvents: Doorbell),
        notificationVerifier: NotificationHistoryPoller.Verify?,
        logger: Logger,
        metrics: ReceiptdMetrics
    ) -> [any Service] {
        let (serverAPI, google) = clients
        let (storeNotifications, googleLookups, webhookEvents) = doorbells
        // With the Server API key: app account tokens owed since an assignment, and the
        // notification history catch-up, whose records are verified as the intake verifies a push (tests may pass
        // another check).
        let historyVerifier =
            notificationVerifier
            ?? { [verifier = AppleNotificationVerifier(storeKit: storeKit, daemon: configuration)] payload in
                try await verifier.verify(signedPayload: payload, source: .history)
            }
        let appleNotifications: [any Service] =
            serverAPI.map { client in
                [
                    AppAccountTokenSetter(
                        queue: queue,
                        client: client,
                        backoff: configuration.backoff,
                        pollInterval: configuration.pollInterval,
                        lease: configuration.lease,
                        logger: logger
                    ),
                    NotificationHistoryPoller(
                        store: queue,
                        client: client,
                        verify: historyVerifier,
                        sandbox: configuration.sandbox,
                        interval: storeKit.notificationHistoryInterval,
                        logger: logger
                    ),
                ]
            } ?? []
        // Acknowledgements owed to Google and its voided purchases are their own long-running parts.
        var companions: [any Service] =
            google.map { client in
                [
                    GoogleFinalizer(
                        queue: queue,
                        client: client,
                        backoff: configuration.backoff,
                        pollInterval: configuration.pollInterval,
                        lease: configuration.lease,
                        logger: logger,
                        metrics: metrics
                    ),
                    GoogleVoidedPoller(
                        queue: queue,
                        client: client,
                        interval: googlePlay.voidedInterval,
                        logger: logger
                    ),
                ]
            } ?? []
        companions += appleNotifications
        // Refund requests: every daemon expires and answers by policy; each sends to the stores it can reach.
        var refundChannels: [any RefundAnswerChannel] = []
        if let serverAPI {
            refundChannels.append(
                AppleConsumptionChannel(
                    client: serverAPI,
                    sampleContentProvided: configuration.refunds.sampleContentProvided
                )
            )
        }
        if let google {
            refundChannels.append(
                GoogleRefundReviewChannel(
                    client: google,
                    sampleContentProvided: configuration.refunds.sampleContentProvided
                )
            )
        }
        companions.append(
            RefundAnswerer(
                queue: queue,
                channels: refundChannels,
                refunds: configuration.refunds,
                backoff: configuration.backoff,
                pollInterval: configuration.pollInterval,
                lease: configuration.lease,
                logger: logger,
                metrics: metrics
            )
        )
        // Every daemon reads App Store subscriptions again when their news asks or their entitlement ends (with the
        // Server API key), and samples the subscriptions' gauges.
        companions.append(
            SubscriptionReader(
                queue: queue,
                client: serverAPI,
                google: google,
                jws: AppleJWSVerifier(roots: storeKit.trustedRoots),
                bundleID: configuration.expectedBundleID,
                backoff: configuration.backoff,
                retryInterval: configuration.subscriptionReadRetryInterval,
                pollInterval: configuration.pollInterval,
                lease: configuration.lease,
                logger: logger,
                metrics: metrics
            )
        )
        // Every daemon processes the recorded store notifications, woken through its LISTEN connection.
        companions.append(
            NotificationProcessor(
                queue: queue,
                rereadsSubscriptions: serverAPI != nil,
                interval: configuration.pollInterval,
                backoff: configuration.backoff,
                logger: logger,
                metrics: metrics,
                doorbell: storeNotifications
            )
        )
        // Google notifications that need Google's answer first (a purchase, a partial refund): asked here, in
        // every daemon, whether or not Google Play is configured (they wait then, and say why).
        companions.append(
            GoogleNotificationLookup(
                queue: queue,
                configuration: googlePlay,
                client: google,
                backoff: configuration.backoff,
                interval: configuration.pollInterval,
                lease: configuration.lease,
                logger: logger,
                metrics: metrics,
                doorbell: googleLookups,
                processor: storeNotifications
            )
        )
        // Trust levels: the settings the database's triggers apply, and provisional grants when they are on.
        companions.append(
            TrustKeeper(
                queue: queue,
                trust: trust,
                receiptAPI: storeKit.receiptVerifier == .serverAPI ? .serverAPI : .verifyReceipt,
                logger: logger,
                metrics: metrics
            )
        )
        // Webhooks to the game server: every daemon sends, woken through its LISTEN connection.
        companions.append(
            WebhookDispatcher(
                queue: queue,
                configuration: webhooks,
                logger: logger,
                metrics: metrics,
                doorbell: webhookEvents
            )
        )
        return companions
    }

    /// How long one attempt may take at most before its lease is in doubt: the longest verification, with the
    /// Server API's slot waits and Google's token round trip, plus half a lease.
    static func makeAttemptLimit(verifier: AppleVerifier, storeKit: StoreKitConfiguration, lease: Duration) -> Duration
    {
        // A Server API lookup may also wait for its slot before each of its two calls; a history read, before each
        // of its pages.
        let slotWait = ServerAPIPacing.defaultLongestWait
        var longestAttempt = verifier.longestVerification + slotWait * 2
        if storeKit.receiptVerifier == .serverAPI {
            // Production's "not found", then every page.
            longestAttempt = max(
                longestAttempt,
                (verifier.configuration.requestTimeout + slotWait) * (1 + ServerAPIClient.historyPageLimit)
            )
        }
        // Google: the token endpoint, the lookup, and the lookup again with a renewed token.
        longestAttempt = max(longestAttempt, verifier.configuration.requestTimeout * 3)
        return longestAttempt + lease / 2
    }
}

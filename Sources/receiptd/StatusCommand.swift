import ArgumentParser
import ReceiptdCore

/// `receiptd status`: the queue at a glance.
struct StatusCommand: OperatorCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract:
            "Show jobs by state, orders by outcome, deliveries, revocations, daemons alive, retries of the last hour, stuck jobs, store notifications, suspicious receipts, provisional grants, untrusted users, subscriptions by state, recent failures, webhooks and product kinds the store contradicts."
    )

    @OptionGroup var options: OperatorOptions

    func run() async throws {
        try await perform({ try await $0.status() }, text: Self.text)
    }

    /// The report for people: the state table, then retries, stuck jobs and failures.
    static func text(_ status: QueueStatus) -> String {
        var sections = [
            TextTable(
                headers: ["STATE", "JOBS", "DUE NOW", "OLDEST DUE", "OLDEST HEARTBEAT"],
                rows: status.states.map { row in
                    [
                        row.state.rawValue, String(row.jobs), String(row.dueNow),
                        HumanDuration.text(row.oldestDueSeconds), HumanDuration.text(row.oldestHeartbeatSeconds),
                    ]
                }
            ).render()
        ]

        sections.append(
            "Orders: " + status.outcomes.map { "\($0.outcome.terminalSafe) \($0.orders)" }.joined(separator: ", ")
        )
        sections.append("Order status: " + status.statuses.map { "\($0.status) \($0.orders)" }.joined(separator: ", "))
        sections.append("Deliveries: production \(status.productionDeliveries), sandbox \(status.sandboxDeliveries)")
        sections.append(
            "Owed to games for over 10 minutes: \(status.owedOverTenMinutes)"
                + (status.owedOverTenMinutes > 0
                    ? " (delivered, not yet granted: is the game server calling iap.mark_granted?)" : "")
        )
        sections.append(
            "Revocations unhandled for over 10 minutes: \(status.revocationsUnhandledOverTenMinutes)"
                + (status.revocationsUnhandledOverTenMinutes > 0
                    ? " (revoked, not yet handled: is the game server calling iap.owed_revocations and "
                        + "iap.mark_revocation_handled?)" : "")
        )
        sections.append(
            "Unclaimed payments: \(status.unclaimedPayments)"
                + (status.unclaimedPayments > 0 ? " (see `receiptd unclaimed`)" : "")
                + (status.nextGoogleRefundOfUnclaimed.map {
                    "; Google refunds one at \($0.terminalSafe) unless it is assigned before"
                } ?? "")
        )
        sections.append("Orders paid beyond their quantity: \(status.overpaidOrders)")
        let alive = status.daemons.filter(\.alive)
        sections.append(
            "Daemons alive: \(alive.count)"
                + (status.daemons.isEmpty
                    ? ""
                    : "\n"
                        + TextTable(
                            headers: ["DAEMON", "LAST HEARTBEAT", "IN FLIGHT", "ALIVE", "PAUSED APIS"],
                            rows: status.daemons.map {
                                [
                                    $0.daemon, HumanDuration.text($0.heartbeatAgeSeconds), String($0.inFlight),
                                    $0.alive ? "yes" : "no",
                                    $0.pausedAPIs.isEmpty ? "-" : $0.pausedAPIs.joined(separator: ","),
                                ]
                            }
                        ).render())
        )
        let paused = Dictionary(grouping: alive.flatMap(\.pausedAPIs), by: { $0 }).sorted { $0.key < $1.key }
        sections.append(
            "Store APIs failing: "
                + (paused.isEmpty
                    ? "none"
                    : paused.map {
                        "\($0.key.terminalSafe) (claims skip its jobs on \($0.value.count) of \(alive.count) daemons alive)"
                    }.joined(separator: ", "))
        )

        if status.retriesLastHour.isEmpty {
            sections.append("Retries in the last hour: none")
        } else {
            sections.append(
                "Retries in the last hour:\n"
                    + TextTable(
                        headers: ["ERROR CLASS", "RETRIES", "JOBS", "LAST SEEN"],
                        rows: status.retriesLastHour.map {
                            [$0.errorClass, String($0.retries), String($0.jobs), $0.lastSeen]
                        }
                    ).render()
            )
        }

        if status.stuckTotal == 0 {
            sections.append("Stuck jobs: none")
        } else {
            let shown =
                status.stuckJobs.count < status.stuckTotal ? " (the \(status.stuckJobs.count) longest shown)" : ""
            sections.append(
                "Stuck jobs: \(status.stuckTotal)\(shown)\n"
                    + TextTable(
                        headers: ["JOB", "ORDER", "STATE", "REASON", "FOR", "ATTEMPTS", "LOCKED BY", "LAST ERROR"],
                        rows: status.stuckJobs.map { job in
                            [
                                job.jobID.map(String.init) ?? "-", job.orderID ?? "-", job.state?.rawValue ?? "-",
                                job.reason, HumanDuration.text(job.stuckSeconds),
                                String(job.attempts), job.lockedBy, job.lastError,
                            ]
                        }
                    ).render()
            )
        }

        for api in status.blockedAPIs {
            sections.append(
                "API blocked: \(api.api.terminalSafe) asked not to be called before \(api.blockedUntil) "
                    + "(\(HumanDuration.text(api.remainingSeconds) ?? "") more; its jobs wait, none is lost)"
            )
        }
        for poll in status.voidedPolls {
            var line =
                "Google voided purchases (\(poll.packageName.terminalSafe)): last successful poll "
                + (poll.lastSuccessSeconds.flatMap { HumanDuration.text($0) }.map { $0 + " ago" } ?? "never")
            if let error = poll.lastError { line += "; the last one failed: \(error.terminalSafe)" }
            if let missing = poll.lockMissingSeconds {
                line +=
                    "; no poll could take its advisory lock for \(HumanDuration.text(missing) ?? "")"
                    + (poll.lockHolders.isEmpty
                        ? "" : ", held by " + poll.lockHolders.joined(separator: "; ").terminalSafe)
            }
            sections.append(line)
        }

        sections.append(
            "Last TEST notification: "
                + status.lastTestNotifications.map { test in
                    "\(test.environment.terminalSafe) "
                        + (test.receivedAt.map { at in test.source.map { "\(at) (\($0.terminalSafe))" } ?? at }
                            ?? "never")
                }.joined(separator: " / ")
        )
        sections.append("Last Google TEST notification: " + (status.lastGoogleTestNotification ?? "never"))
        sections.append(
            "Store notifications not yet processed: \(status.unprocessedNotifications)"
                + (status.oldestUnprocessedNotificationSeconds.flatMap { HumanDuration.text($0) }.map {
                    " (the oldest received \($0) ago)"
                } ?? "")
        )
        sections.append(
            "Refund requests answered late: \(status.refundAnswersLate)"
                + (status.refundAnswersLate > 0
                    ? " (not answered an hour before the store's deadline; see iap.stuck_jobs and iap.refund_requests)"
                    : "")
        )
        sections.append(
            "Waiting for a store to be configured: \(status.waitingForStoreConfiguration)"
                + (status.waitingForStoreConfiguration > 0
                    ? " (their last_error names the setting; see `receiptd jobs --state pending`)" : "")
        )
        sections.append(
            "Suspicious receipts in the last 24 h: \(status.suspiciousReceipts)"
                + (status.suspiciousReceipts > 0
                    ? " (purchases first delivered to another user; see iap.suspicious_receipts)" : "")
        )
        let grants = status.provisionalGrants
        sections.append(
            "Provisional grants: \(grants.unconfirmed) unconfirmed; in the last 24 h \(grants.confirmedLastDay) "
                + "confirmed, \(grants.refutedLastDay) refuted"
                + (grants.refutedLastDay > 0
                    ? " (refuted grants are owed back: see iap.owed_revocations, reason provisional_refuted)" : "")
        )
        sections.append(
            "Untrusted users: apple \(status.untrustedUsers.apple), google \(status.untrustedUsers.google)"
                + " (recorded levels; see `receiptd trust USER`)"
        )
        let states = SubscriptionState.allCases.compactMap { state in
            status.subscriptions.byState[state].map { "\(state.rawValue) \($0)" }
        }
        sections.append(
            "Subscriptions: " + (states.isEmpty ? "none" : states.joined(separator: ", "))
                + "; re-reads overdue \(status.subscriptions.overdueReads)"
                + (status.subscriptions.overdueReads > 0
                    ? " (due over a minute ago: App Store Server API credentials missing, or Apple failing; see `receiptd subscriptions USER`)"
                    : "")
                + "; re-reads failing \(status.subscriptions.failingReads)"
                + (status.subscriptions.failingReads > 0
                    ? " (the store refuses them, 404: read again every RECEIPTD_SUBSCRIPTION_READ_RETRY_INTERVAL;"
                        + " see iap.stuck_jobs, reason subscription_read_failing)"
                    : "")
        )
        sections.append(
            "Failures in the last 24 h: \(status.recentFailures)"
                + (status.recentFailures > 0
                    ? " (see `receiptd jobs --state failed --since 24h` or iap.recent_failures)" : "")
        )
        sections.append(webhooksLine(status.webhooks))
        sections.append(
            "Product kinds the store contradicts: \(status.productKindMismatches.count)"
                + status.productKindMismatches.map {
                    "\n  "
                        + "\($0.store) \($0.productID): declared \($0.kind), the store says \($0.storeKind ?? "-") (used)"
                        .terminalSafe
                }.joined()
        )
        return sections.joined(separator: "\n\n")
    }

    /// `Webhooks: …`: the endpoint, then the events pending (with the oldest's age), failed, and delivered in the
    /// last hour.
    static func webhooksLine(_ webhooks: WebhookFigures) -> String {
        let endpoint = webhooks.endpoint
        var line = "Webhooks: " + (endpoint.configured ? "endpoint configured" : "endpoint not configured")
        if let disabledAt = endpoint.disabledAt {
            line +=
                ", DISABLED since \(disabledAt.terminalSafe) (410 Gone"
                + (endpoint.disabledEvent.map { " to \($0.terminalSafe)" } ?? "")
                + "; every event waits: run `receiptd webhooks enable` once the endpoint is back)"
        }
        line +=
            "; \(webhooks.pending) pending"
            + (webhooks.oldestPendingSeconds.flatMap { HumanDuration.text($0) }.map {
                " (the oldest written \($0) ago)"
            }
                ?? "")
            + ", \(webhooks.failed) failed"
            + (webhooks.failed > 0 ? " (see `receiptd webhooks --state failed`; `receiptd webhooks replay ID…`)" : "")
            + "; delivered in the last hour: \(webhooks.deliveredLastHour)"
        return line
    }
}

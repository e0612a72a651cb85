extension OrderTimeline {
    /// The events in the order they are listed before sorting by time.
    var unsortedEvents: [TimelineEvent] {
        let order = detail.order
        var events = [
            TimelineEvent(
                kind: .checkout,
                at: order.createdAt,
                title: "order \(order.orderID) of user \(order.userID): \(order.quantity) × \(order.productID)",
                fields: [("user id", order.userID), ("product", order.productID), ("quantity", "\(order.quantity)")]
            )
        ]
        for job in detail.jobs {
            events.append(
                TimelineEvent(
                    kind: .job,
                    at: job.createdAt,
                    title: "job \(job.id) (\(job.kind.rawValue)) enqueued: now \(job.state.rawValue)",
                    fields: [
                        ("state", job.state.rawValue), ("attempts", "\(job.attempts)"), ("started", job.startedAt),
                        ("finished", job.finishedAt), ("environment", job.environment),
                        ("superseded by", job.supersededBy.map { "job \($0)" }), ("daemon", job.lockedBy),
                    ],
                    error: job.lastError
                )
            )
            for attempt in job.attemptLog {
                events.append(
                    TimelineEvent(
                        kind: .attempt,
                        at: attempt.finishedAt,
                        title: "attempt \(attempt.attempt) of job \(job.id): \(attempt.result)",
                        fields: [
                            ("result", attempt.result), ("store status", attempt.appleStatus.map { "\($0)" }),
                            ("http status", attempt.httpStatus.map { "\($0)" }), ("error class", attempt.errorClass),
                            ("environment", attempt.environment), ("duration", "\(attempt.durationMs) ms"),
                            ("daemon", attempt.daemon),
                        ],
                        error: attempt.error
                    )
                )
            }
        }
        for delivery in detail.deliveries {
            events.append(
                TimelineEvent(
                    kind: .delivery,
                    at: delivery.deliveredAt,
                    title: "delivered transaction \(delivery.transactionID): \(delivery.quantity) unit(s)",
                    fields: [
                        ("transaction id", delivery.transactionID), ("quantity", "\(delivery.quantity)"),
                        ("purchased", delivery.purchaseDate), ("environment", delivery.environment),
                        ("job", delivery.jobID.map { "job \($0)" }),
                        ("granted by the game", grantedAt[delivery.transactionID]),
                        ("kind", delivery.productKind), ("ownership", delivery.ownership),
                        ("price", delivery.priceText), ("offer", delivery.offerText),
                        ("purchase option", delivery.purchaseOptionID),
                        // A share refunded (prorated, or Google's partial refunds) of a row that stays delivered.
                        (
                            "revoked share",
                            delivery.revokedAt == nil
                                ? delivery.revocationPercentage.map {
                                    "\(Double($0) / 1000) % (\(delivery.revokedQuantity) unit(s))"
                                }
                                : nil
                        ),
                    ]
                )
            )
            if let granted = grantedAt[delivery.transactionID] {
                events.append(
                    TimelineEvent(
                        kind: .grant,
                        at: granted,
                        title: "the game granted transaction \(delivery.transactionID)",
                        fields: [("transaction id", delivery.transactionID)]
                    )
                )
            }
            if let revoked = delivery.revokedAt {
                events.append(
                    TimelineEvent(
                        kind: .revocation,
                        at: revoked,
                        title: "the store revoked transaction \(delivery.transactionID)",
                        fields: [
                            ("transaction id", delivery.transactionID), ("reason", delivery.revocationReason),
                            ("share", delivery.revocationPercentage.map { "\(Double($0) / 1000) %" }),
                            ("handled by the game", delivery.revocationHandledAt),
                        ]
                    )
                )
            }
        }
        if let grant = detail.provisionalGrant {
            events.append(
                TimelineEvent(
                    kind: .grant,
                    at: grant.createdAt,
                    title: "provisional grant of \(grant.quantity) × \(grant.productID) (\(grant.cause.rawValue)): "
                        + grant.state.rawValue,
                    fields: [
                        ("state", grant.state.rawValue), ("job", grant.jobID.map { "job \($0)" }),
                        ("granted by the game", grant.grantedAt), ("resolved", grant.resolvedAt),
                        ("refuted by", grant.refutedBy), ("replaced", grant.replaced ? "yes" : nil),
                        ("revocation handled", grant.revocationHandledAt),
                    ]
                )
            )
        }
        for notification in detail.notifications {
            events.append(
                TimelineEvent(
                    kind: .notification,
                    at: notification.receivedAt,
                    title: "\(notification.store) notification \(notification.type)"
                        + (notification.subtype.map { "/\($0)" } ?? ""),
                    fields: [
                        ("transaction id", notification.transactionID),
                        ("notification id", notification.notificationID),
                        ("source", notification.source), ("processed", notification.processedAt),
                        ("result", notification.result),
                    ],
                    error: notification.error
                )
            )
        }
        for event in detail.webhookEvents {
            events.append(
                TimelineEvent(
                    kind: .webhook,
                    at: event.createdAt,
                    title: "webhook \(event.type): \(event.state.rawValue)",
                    fields: [
                        ("event id", event.id), ("attempts", "\(event.attempts)"),
                        ("last status", event.lastStatus.map { "\($0)" }), ("delivered", event.deliveredAt),
                        ("next attempt", event.nextAttemptAt),
                    ],
                    error: event.lastError
                )
            )
        }
        for action in actions {
            let refused = action.result.hasPrefix("refused:") || action.result.hasPrefix("not found:")
            events.append(
                TimelineEvent(
                    kind: .action,
                    at: action.at,
                    title: "\(action.action) by \(action.actor)",
                    fields: [
                        ("target", action.target), ("result", action.result), ("database login", action.sessionUser),
                    ],
                    error: refused ? action.result : nil
                )
            )
        }
        return events
    }
}

/// The answer to a refund request the game left unanswered: a pure function of the ledger's facts and the
/// operator's settings, tested without I/O.
package struct RefundPolicy: Sendable {
    /// What the ledger says about the purchase a request is about.
    package struct Facts: Sendable, Equatable {
        /// The purchase is in the ledger.
        package var delivered: Bool
        /// The game confirmed it gave the goods (`mark_granted`).
        package var granted: Bool
        /// The kind the purchase was delivered as.
        package var kind: ProductKind?
        /// What the game reported consumed (`iap.report_consumption`), in thousandths of a percent.
        package var reportedConsumption: Int?
        /// The player's refunds in the last 90 days.
        package var refundsIn90Days: Int

        /// Creates facts.
        package init(
            delivered: Bool,
            granted: Bool,
            kind: ProductKind? = nil,
            reportedConsumption: Int? = nil,
            refundsIn90Days: Int = 0
        ) {
            self.delivered = delivered
            self.granted = granted
            self.kind = kind
            self.reportedConsumption = reportedConsumption
            self.refundsIn90Days = refundsIn90Days
        }
    }

    /// What the policy answers.
    package struct Decision: Sendable, Equatable {
        /// The preference.
        package var preference: RefundPreference
        /// The consumption sent with it, in thousandths of a percent; nil when unknown.
        package var consumed: Int?
    }

    /// The settings it follows.
    package var configuration: RefundConfiguration

    /// Creates a policy.
    package init(configuration: RefundConfiguration) {
        self.configuration = configuration
    }

    /// Goods never delivered, or never given by the game, are refunded in full: the player got nothing. Goods
    /// given are answered with the reported consumption and the operator's preference; `auto` declines from
    /// `declineFrom` consumed or at the refund limit, prorates a smaller consumption, and otherwise states none.
    package func decide(_ facts: Facts) -> Decision {
        guard facts.delivered, facts.granted else { return Decision(preference: .grantFull, consumed: 0) }
        let consumed = facts.reportedConsumption
        switch configuration.preference {
        case .none: return Decision(preference: .none, consumed: consumed)
        case .decline: return Decision(preference: .decline, consumed: consumed)
        case .grantFull: return Decision(preference: .grantFull, consumed: consumed)
        case .auto:
            let atLimit = configuration.abuseLimit > 0 && facts.refundsIn90Days >= configuration.abuseLimit
            if atLimit || (consumed ?? 0) >= configuration.declineFrom && consumed != nil {
                return Decision(preference: .decline, consumed: consumed)
            }
            if let consumed, consumed > 0, consumed < configuration.declineFrom {
                return Decision(preference: .grantProrated, consumed: consumed)
            }
            return Decision(preference: .none, consumed: consumed)
        }
    }
}

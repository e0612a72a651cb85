extension GoogleProductPurchase {
    /// `purchaseState`.
    enum PurchaseState: Sendable, Equatable {
        /// 0: paid.
        case purchased
        /// 1: cancelled (refunded, or never paid).
        case cancelled
        /// 2: pending (cash, bank transfer): Google settles it later.
        case pending
        /// A code Google has not documented: pays nothing.
        case unknown(Int64)

        /// The state of `code`.
        init(code: Int64) {
            switch code {
            case 0: self = .purchased
            case 1: self = .cancelled
            case 2: self = .pending
            default: self = .unknown(code)
            }
        }

        /// Google's number for it, for `iap.attempts.apple_status`.
        var code: Int64 {
            switch self {
            case .purchased: 0
            case .cancelled: 1
            case .pending: 2
            case .unknown(let code): code
            }
        }
    }

    /// `purchaseType`, present only for purchases not made with real money.
    enum PurchaseType: Sendable, Equatable {
        /// 0: a license tester's purchase: counts as the sandbox.
        case test
        /// 1: bought with a promo code.
        case promo
        /// 2: rewarded (watching an ad).
        case rewarded
        /// A code Google has not documented.
        case unknown(Int64)

        /// The type of `code`.
        init(code: Int64) {
            switch code {
            case 0: self = .test
            case 1: self = .promo
            case 2: self = .rewarded
            default: self = .unknown(code)
            }
        }
    }

    /// `acknowledgementState`.
    enum AcknowledgementState: Sendable, Equatable {
        /// 0: not yet acknowledged: Google refunds it after three days.
        case pending
        /// 1: acknowledged.
        case acknowledged

        /// The state of `code`; anything but 1 counts as not acknowledged.
        init(code: Int64) { self = code == 1 ? .acknowledged : .pending }
    }

    /// `consumptionState`.
    enum ConsumptionState: Sendable, Equatable {
        /// 0: not yet consumed.
        case pending
        /// 1: consumed.
        case consumed

        /// The state of `code`; anything but 1 counts as not consumed.
        init(code: Int64) { self = code == 1 ? .consumed : .pending }
    }

    /// The environment it counts as: a test purchase is the sandbox, everything else production.
    var environment: StoreEnvironment { purchaseType == .test ? .sandbox : .production }

    /// The calls Google already has: acknowledged, consumed (a consumed purchase is acknowledged as well).
    var finalizedBy: Set<GoogleFinalizeAction> {
        var done: Set<GoogleFinalizeAction> = []
        if acknowledgementState == .acknowledged { done.insert(.acknowledge) }
        if consumptionState == .consumed { done.formUnion([.consume, .acknowledge]) }
        return done
    }
}

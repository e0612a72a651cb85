import Testing

@testable import ReceiptdCore

/// The answer to a refund request the game left unanswered, and what Apple is sent for it, without I/O.
@Suite struct RefundPolicyTests {
    private func policy(_ choice: RefundPolicyChoice, limit: Int = 3) -> RefundPolicy {
        var configuration = RefundConfiguration()
        configuration.preference = choice
        configuration.abuseLimit = limit
        return RefundPolicy(configuration: configuration)
    }

    @Test func goodsThePlayerNeverGotAreGrantedWhateverThePreference() {
        for choice in RefundPolicyChoice.allCases {
            let decide = policy(choice).decide
            #expect(decide(.init(delivered: false, granted: false)) == .init(preference: .grantFull, consumed: 0))
            #expect(decide(.init(delivered: true, granted: false)) == .init(preference: .grantFull, consumed: 0))
        }
    }

    @Test func goodsGivenTakeTheOperatorsPreferenceAndTheReportedConsumption() {
        let given = RefundPolicy.Facts(delivered: true, granted: true, reportedConsumption: 70_000)
        #expect(policy(.none).decide(given) == .init(preference: .none, consumed: 70_000))
        #expect(policy(.decline).decide(given) == .init(preference: .decline, consumed: 70_000))
        #expect(policy(.grantFull).decide(given) == .init(preference: .grantFull, consumed: 70_000))
    }

    @Test func autoDeclinesWhatWasSpentProratesWhatWasPartlySpentAndSaysNothingOtherwise() {
        let auto = policy(.auto)
        func facts(_ consumed: Int?, refunds: Int = 0) -> RefundPolicy.Facts {
            .init(delivered: true, granted: true, reportedConsumption: consumed, refundsIn90Days: refunds)
        }
        #expect(auto.decide(facts(100_000)) == .init(preference: .decline, consumed: 100_000))
        #expect(auto.decide(facts(50_000)) == .init(preference: .decline, consumed: 50_000))
        #expect(auto.decide(facts(20_000)) == .init(preference: .grantProrated, consumed: 20_000))
        #expect(auto.decide(facts(0)) == .init(preference: .none, consumed: 0))
        #expect(auto.decide(facts(nil)) == .init(preference: .none, consumed: nil))
        // A player at the refund limit is declined; a limit of 0 is off.
        #expect(auto.decide(facts(nil, refunds: 3)) == .init(preference: .decline, consumed: nil))
        #expect(policy(.auto, limit: 0).decide(facts(nil, refunds: 30)) == .init(preference: .none, consumed: nil))
    }

    @Test func appleIsSentThePreferenceItTakesForTheKind() {
        let prorated = ConsumptionInformation(
            deliveredAndGranted: true,
            kind: .consumable,
            consumed: 20_000,
            preference: .grantProrated,
            sampleContentProvided: true
        )
        #expect(
            prorated.json
                == #"{"consumptionPercentage":20000,"customerConsented":true,"deliveryStatus":"DELIVERED","refundPreference":"GRANT_PRORATED","sampleContentProvided":true}"#
        )
        // Apple prorates no auto-renewable, and takes no consumption for one.
        let subscription = ConsumptionInformation(
            deliveredAndGranted: true,
            kind: .autoRenewable,
            consumed: 20_000,
            preference: .grantProrated
        )
        #expect(subscription.refundPreference == "GRANT_FULL" && subscription.consumptionPercentage == nil)
        // Goods not delivered: 0 consumed, whatever was reported.
        let undelivered = ConsumptionInformation(deliveredAndGranted: false, consumed: 90_000, preference: .grantFull)
        #expect(undelivered.consumptionPercentage == 0 && undelivered.deliveryStatus == "UNDELIVERED_OTHER")
        #expect(RefundPreference.allCases.map(\.googleValue) == ["NEUTRAL", "DECLINE", "APPROVE", "APPROVE"])
    }

    @Test func theSettingsAreReadWithTheOldNameStillTaken() throws {
        let defaults = try ReceiptdSettings(completing: [:]).daemon.refunds
        #expect(defaults == RefundConfiguration())
        let set = try ReceiptdSettings(completing: [
            "RECEIPTD_REFUND_GAME_WAIT": "90s", "RECEIPTD_REFUND_PREFERENCE": "auto",
            "RECEIPTD_REFUND_DECLINE_FROM": "60000", "RECEIPTD_SAMPLE_CONTENT_PROVIDED": "true",
            "RECEIPTD_REFUND_ABUSE_LIMIT": "0",
        ]).daemon.refunds
        #expect(set.gameWait == .seconds(90) && set.preference == .auto && set.declineFrom == 60_000)
        #expect(set.sampleContentProvided && set.abuseLimit == 0)
        #expect(
            try ReceiptdSettings(completing: ["APPLE_REFUND_PREFERENCE": "decline"]).daemon.refunds.preference
                == .decline
        )
        for (name, value) in [
            ("RECEIPTD_REFUND_GAME_WAIT", "7h"), ("RECEIPTD_REFUND_GAME_WAIT", "0.5s"),
            ("RECEIPTD_REFUND_PREFERENCE", "grant_prorated"), ("RECEIPTD_REFUND_DECLINE_FROM", "100001"),
            ("RECEIPTD_SAMPLE_CONTENT_PROVIDED", "yes"),
        ] {
            #expect("\(name)=\(value)") {
                _ = try ReceiptdSettings(completing: [name: value])
            } throws: { error in
                (error as? ConfigurationError)?.variable == name
            }
        }
    }
}

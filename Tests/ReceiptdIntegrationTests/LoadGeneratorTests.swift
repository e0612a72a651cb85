import Foundation
import ReceiptdTools
import Testing

/// `receiptd loadgen`'s library: the mix, and a run checked end to end against a running daemon.
@Suite struct LoadGeneratorTests {
    @Test func theMixParsesAndInterleavesItsShares() throws {
        let mix = try LoadMix(parsing: "full=70,partial=10,no_in_app=10,replay=5,replace=5")
        #expect(mix == .standard)
        let first100 = (0..<100).map { mix.kind(at: $0) }
        #expect(first100.filter { $0 == .full }.count == 70)
        #expect(first100.filter { $0 == .replace }.count == 5)
        // Evenly spread: the first 20 already hold every kind.
        #expect(Set(first100.prefix(20)).count == 5)
        #expect(try LoadMix(parsing: "full=1").kind(at: 7) == .full)
    }

    @Test func aBadMixSaysWhatIsWrong() {
        let cases = [
            "full=70,bogus=3": "not KIND=WEIGHT", "full=-1": "whole number", "full=x": "whole number",
            "full=0": "add up to 0", "full=1,full=2": "given twice", "": "not KIND=WEIGHT",
        ]
        for (text, message) in cases {
            #expect { try LoadMix(parsing: text) } throws: { ($0 as? LoadError)?.description.contains(message) == true }
        }
    }

    @Test func aRunSettlesAsTheMixSays() async throws {
        try await Fixture.with { f in
            let generator = LoadGenerator(
                configuration: .init(orders: 300, users: 40, batchSize: 64),
                databaseURL: f.database.connectionString
            )
            try await f.withDaemons { _ in
                let summary = try await generator.run()
                // 100 mix slots make 105 orders (a replay is a pair): about 286 slots, 14 of them replaces.
                #expect(summary.orders == 300 && (13...15).contains(summary.replacements))
                let verdict = try await generator.waitForOutcomes(of: summary, timeout: 60)
                #expect(verdict.isCorrect, "\(verdict.summary)")
                #expect(verdict.orders == 300 && verdict.seconds > 0)
                #expect((verdict.outcomes["partial"] ?? 0) >= 25 && (verdict.outcomes["unmatched"] ?? 0) >= 12)
            }
        }
    }

    @Test func aWrongOutcomeIsAMismatch() async throws {
        try await Fixture.with { f in
            let generator = LoadGenerator(
                configuration: .init(orders: 20, mix: try LoadMix(parsing: "full=1")),
                databaseURL: f.database.connectionString
            )
            let summary = try await generator.run()
            try await f.connection.execute("UPDATE iap.orders SET outcome = 'unmatched', outcome_at = now()")
            let verdict = try await generator.waitForOutcomes(of: summary, timeout: 5)
            #expect(!verdict.isCorrect && verdict.mismatches.count == 20 && verdict.settled == 20)
        }
    }
}

import Foundation
import Testing

/// Settings past their bound stop `receiptd run` at start with exit 78 naming the variable, instead of the crash
/// or the failing ticks they used to cause.
@Suite struct SettingBoundsCommandLineTests {
    @Test(arguments: [
        ("RECEIPTD_PURCHASE_SKEW", "1e19"), ("RECEIPTD_POLL_INTERVAL", "1e30"), ("RECEIPTD_LEASE", "1e30"),
        ("GOOGLE_PLAY_VOIDED_INTERVAL", "1e30"), ("RECEIPTD_RETENTION", "9999999d"),
    ])
    func runExits78ForAnExtremeValue(variable: String, value: String) throws {
        let run = try ReceiptdBinary.run(
            [
                "run", "--database-url", "host=127.0.0.1 port=1", "--apple-bundle-id", "com.example.game",
                "--metrics-addr", "",
            ],
            environment: [variable: value]
        )
        #expect(run.status == 78, "\(variable)=\(value): \(run.stderr)")
        #expect(run.stderr.contains(variable) && run.stderr.contains("at most"), "\(run.stderr)")
    }
}

import ArgumentParser
import Foundation

/// `receiptd`: verifies App Store receipts stored in PostgreSQL and records what each order received.
@main
struct Receiptd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiptd",
        abstract: "Verifies App Store receipts queued in PostgreSQL and delivers each paid purchase once.",
        subcommands: [
            MigrateCommand.self, RunCommand.self, DemoCommand.self, FakeAppStoreCommand.self,
            FakeGooglePlayCommand.self,
            StatusCommand.self, JobsCommand.self, ShowCommand.self, RetryCommand.self, CancelCommand.self,
            EnqueueCommand.self,
            UnclaimedCommand.self, AssignCommand.self,
            NotificationsCommand.self, TrustCommand.self, RefundsCommand.self, SubscriptionsCommand.self,
            WebhooksCommand.self, FakeWebhookReceiverCommand.self,
            ChaosCommand.self, LoadgenCommand.self, BenchmarkCommand.self, ConsoleCommand.self, ProductsCommand.self,
        ]
    )

    /// ArgumentParser's `main()`, except that usage errors exit with status 2, as most Unix tools do, instead of 64.
    static func main() async {
        do {
            var command = try await asyncParseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            FileHandle.standardError.write(Data((fullMessage(for: error) + "\n").utf8))
            Foundation.exit(OperatorExitCode.usage.rawValue)
        }
    }
}

import ArgumentParser

/// `receiptd`: verifies App Store receipts stored in PostgreSQL and records what each order received.
@main
struct Receiptd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receiptd",
        abstract: "Verifies App Store receipts queued in PostgreSQL and delivers each paid purchase once.",
        subcommands: [MigrateCommand.self, RunCommand.self, DemoCommand.self, FakeAppStoreCommand.self, ChaosCommand.self]
    )
}

import ArgumentParser
import ReceiptdCore

/// `receiptd jobs`: jobs, newest first, filtered.
struct JobsCommand: OperatorCommand {
    static let configuration = CommandConfiguration(commandName: "jobs", abstract: "List jobs, newest first.")

    @OptionGroup var options: OperatorOptions

    @Option(help: "Only jobs in this state.")
    var state: JobState?

    @Option(help: "Only this order's jobs.")
    var order: String?

    @Option(
        help: "Only jobs created, started or finished since then: 90m, 2h, 7d or an ISO-8601 time.",
        transform: TimeBound.init(parsing:)
    )
    var since: TimeBound?

    @Option(help: "At most this many.")
    var limit = 50

    func validate() throws {
        guard limit >= 1 else { throw ValidationError("--limit must be at least 1") }
    }

    func run() async throws {
        let filter = JobFilter(state: state, orderID: order, since: since, limit: limit)
        try await perform({ try await $0.jobs(filter) }, text: Self.text)
    }

    /// One line per job for people.
    static func text(_ jobs: [JobSummary]) -> String {
        guard !jobs.isEmpty else { return "No jobs match." }
        return TextTable(
            headers: [
                "JOB", "ORDER", "USER", "PRODUCT", "STATE", "ATTEMPTS", "OUTCOME", "CREATED", "RUN AT", "FINISHED",
                "LAST ERROR",
            ],
            rows: jobs.map { job in
                [
                    String(job.id), job.orderID, job.userID, job.productID, job.state.rawValue, String(job.attempts),
                    job.outcome,
                    job.createdAt, job.state == .pending ? job.runAt : nil, job.finishedAt, job.lastError,
                ]
            }
        ).render()
    }
}

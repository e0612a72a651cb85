import ArgumentParser

/// The exit statuses of the operator commands, documented in the Operating article.
enum OperatorExitCode {
    /// A runtime or database error.
    static let failure = ExitCode(1)
    /// Bad arguments; `Receiptd.main` maps ArgumentParser's 64 (EX_USAGE) to this.
    static let usage = ExitCode(2)
    /// No such order or job.
    static let notFound = ExitCode(3)
    /// The database refused: a full order, no active job to cancel, an already active job, bad receipt input.
    static let refused = ExitCode(4)
}

/// Why a database's schema cannot be migrated, or cannot be used by this daemon.
package enum MigrationError: Error, Equatable, CustomStringConvertible {
    /// The file of an applied migration was edited afterwards.
    case checksumMismatch(version: Int, name: String)
    /// A newer receiptd migrated the database further than this binary knows.
    case databaseIsNewer(database: Int, binary: Int)
    /// The database lacks migrations this daemon needs.
    case databaseIsBehind(database: Int, binary: Int)
    /// Another session held the migration's advisory lock for all of `waitedSeconds`; `holders` describes it
    /// (pid, user, application name), empty when it let go just then.
    case lockHeld(waitedSeconds: Double, holders: [String])

    /// What happened and what to do.
    package var description: String {
        switch self {
        case .checksumMismatch(let version, let name):
            "migration \(version) (\(name)) was changed after this database applied it (checksum mismatch); "
                + "applied migrations are immutable: restore the file, and put the change in a new migration"
        case .databaseIsNewer(let database, let binary):
            "the database schema is at version \(database), newer than this receiptd knows (\(binary)); migrate with the newer receiptd"
        case .databaseIsBehind(let database, let binary):
            "the database schema is at version \(database), but this receiptd needs version \(binary): run `receiptd migrate`"
        case .lockHeld(let waited, let holders):
            "another session held the migration lock (pg_advisory_lock \(Migrator.lockKey)) for all of the \(String(format: "%g", waited)) s waited: "
                + (holders.isEmpty
                    ? "it has just let go; run migrate again"
                    : holders.joined(separator: "; ")
                        + ". Nothing was changed: end that session (SELECT pg_terminate_backend(pid)) or let it finish, then run migrate again")
        }
    }
}

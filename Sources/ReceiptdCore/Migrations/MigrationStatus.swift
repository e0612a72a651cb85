/// One line of `receiptd migrate --status`.
package struct MigrationStatus: Sendable, Equatable, Codable {
    /// The migration's number.
    package var version: Int
    /// Its name.
    package var name: String
    /// When it was applied (ISO-8601, UTC); `nil` while pending.
    package var appliedAt: String?
    /// False when the database recorded another checksum for it than this binary's file has.
    package var checksumMatches: Bool
    /// False for a migration a newer receiptd applied.
    package var knownToThisBinary: Bool

    /// Whether the database has it.
    package var isApplied: Bool { appliedAt != nil }
}

/// One line of `receiptd migrate --status`.
public struct MigrationStatus: Sendable, Equatable, Codable {
    /// The migration's number.
    public var version: Int
    /// Its name.
    public var name: String
    /// When it was applied (ISO-8601, UTC); `nil` while pending.
    public var appliedAt: String?
    /// False when the database recorded another checksum for it than this binary's file has.
    public var checksumMatches: Bool
    /// False for a migration a newer receiptd applied.
    public var knownToThisBinary: Bool

    /// Whether the database has it.
    public var isApplied: Bool { appliedAt != nil }
}

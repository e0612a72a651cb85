import ArgumentParser
import Foundation

/// The flags every operator command takes.
struct OperatorOptions: ParsableArguments {
    @Option(help: "libpq connection string or URI (default: DATABASE_URL, then libpq's PG* variables).")
    var databaseURL: String?

    @Flag(help: "Print one JSON document on stdout instead of tables.")
    var json = false

    /// The flag, else `DATABASE_URL`, else empty, which means libpq's defaults.
    var connectionString: String {
        databaseURL ?? ProcessInfo.processInfo.environment["DATABASE_URL"] ?? ""
    }
}

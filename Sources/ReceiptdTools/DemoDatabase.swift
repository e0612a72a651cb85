/// The demo's throwaway PostgreSQL, as the console sees it: its superuser's connection string and where it lives
/// (removed when the demo ends).
package struct DemoDatabase: Sendable {
    /// The superuser's connection string to the demo's database.
    package var connectionString: String
    /// The cluster's data directory.
    package var dataDirectory: String
    /// The cluster's temporary directory (the data directory's parent), removed with it.
    package var directory: String
}

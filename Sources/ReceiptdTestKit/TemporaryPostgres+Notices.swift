extension TemporaryPostgres {
    /// Runs `commands` in order in one `psql` session on `database`, as `postgres`, and returns what psql printed
    /// besides their results, which it discards: the server's notices (auto_explain's plans, say). Throws when a
    /// command fails. The tests' own connections do not collect notices; psql prints each one whole.
    package func notices(database: String, commands: [String]) throws -> String {
        let tools = try PostgresServerTools.locate()
        return try ProcessRunner.run(
            tools.binDirectory + "/psql",
            ["-X", "-q", "-v", "ON_ERROR_STOP=1", "-o", "/dev/null", "-d", connectionString(database: database)]
                + commands.flatMap { ["-c", $0] },
            displayedCommand: "psql " + commands.joined(separator: "; ")
        )
    }
}

extension QueryResult.Row {
    /// A column as a 64-bit id; throws when it is NULL, absent or not a number.
    func int64(_ name: String) throws -> Int64 {
        guard let value = Int64(try string(name)) else {
            throw PostgresError(kind: .query, message: "column \(name) is not an integer")
        }
        return value
    }

    /// A nullable integer column; NULL and absent are `nil`.
    func optionalInt(_ name: String) -> Int? { self[name].flatMap { Int($0) } }

    /// A nullable id column; NULL and absent are `nil`.
    func optionalInt64(_ name: String) -> Int64? { self[name].flatMap { Int64($0) } }

    /// A `state` column as a `JobState`.
    func jobState(_ name: String = "state") throws -> JobState {
        let text = try string(name)
        guard let state = JobState(rawValue: text) else {
            throw PostgresError(kind: .query, message: "column \(name) holds an unknown job state '\(text)'")
        }
        return state
    }
}

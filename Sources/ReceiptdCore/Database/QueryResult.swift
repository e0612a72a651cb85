/// The rows of one statement, in text format, copied out of libpq's result.
package struct QueryResult: Sendable {
    /// Column names, in order.
    package var columns: [String]
    /// Each row's values; `nil` is SQL NULL.
    package var rows: [[String?]]
    /// Rows the statement affected (`UPDATE`, `INSERT`, …), or the row count for `SELECT`.
    package var affectedRows: Int

    /// Creates a result.
    package init(columns: [String], rows: [[String?]], affectedRows: Int) {
        self.columns = columns
        self.rows = rows
        self.affectedRows = affectedRows
    }

    /// The first row, if any.
    package var first: Row? { rows.isEmpty ? nil : Row(columns: columns, values: rows[0]) }

    /// Every row with access by column name.
    package var namedRows: [Row] { rows.map { Row(columns: columns, values: $0) } }

    /// One row, read by column name.
    package struct Row: Sendable {
        let columns: [String]
        let values: [String?]

        /// The raw text of a column, `nil` for NULL or an unknown column.
        package subscript(_ name: String) -> String? {
            guard let index = columns.firstIndex(of: name) else { return nil }
            return values[index]
        }

        /// A column as a string; throws when it is NULL or absent.
        package func string(_ name: String) throws -> String {
            guard let value = self[name] else {
                throw PostgresError(kind: .query, message: "column \(name) is NULL or missing")
            }
            return value
        }

        /// A column as an integer; throws when it is NULL, absent or not a number.
        package func int(_ name: String) throws -> Int {
            guard let value = Int(try string(name)) else {
                throw PostgresError(kind: .query, message: "column \(name) is not an integer")
            }
            return value
        }

        /// A column as a boolean (`t`/`f`).
        package func bool(_ name: String) throws -> Bool { try string(name) == "t" }
    }
}

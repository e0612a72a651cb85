import ReceiptdCore

/// Columns aligned with spaces for people; columns of numbers (and `-`) are right-aligned.
/// Control characters in cells are shown as escapes (`String.terminalSafe`).
struct TextTable {
    /// Column titles.
    var headers: [String]
    /// Cells; `nil` prints as `-`.
    var rows: [[String?]]

    /// The table, one line per row, without a trailing newline. The last column is not padded.
    func render() -> String {
        // Cells hold database values: a raw ESC, CR or LF would reach the operator's terminal.
        let cells = rows.map { $0.map { ($0 ?? "-").terminalSafe } }
        let widths = headers.indices.map { column in
            cells.reduce(headers[column].count) { max($0, $1[column].count) }
        }
        let numeric = headers.indices.map { column in
            cells.contains { Double($0[column]) != nil }
                && cells.allSatisfy { $0[column] == "-" || Double($0[column]) != nil }
        }
        func line(_ values: [String]) -> String {
            values.indices.map { column in
                let value = values[column]
                let padding = String(repeating: " ", count: widths[column] - value.count)
                if numeric[column] { return padding + value }
                return column == values.count - 1 ? value : value + padding
            }.joined(separator: "  ")
        }
        return ([line(headers)] + cells.map(line)).joined(separator: "\n")
    }
}

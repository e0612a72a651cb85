import Foundation

/// An error from PostgreSQL or libpq.
///
/// The description carries the server's message and SQLSTATE, never the connection string, so a
/// password in `DATABASE_URL` cannot leak through it; `PostgresConnection.connect` masks the password
/// when libpq quotes it from a malformed string.
package struct PostgresError: Error, CustomStringConvertible, Sendable {
    /// What went wrong, in broad strokes.
    package enum Kind: Sendable, Equatable {
        /// The connection could not be made or was lost; retrying on a new connection may work.
        case connection
        /// The server rejected a statement; the statement's transaction was rolled back.
        case query
    }

    /// What went wrong, in broad strokes.
    package var kind: Kind
    /// The message libpq or the server gave.
    package var message: String
    /// The five-character SQLSTATE, when the server sent one.
    package var sqlState: String?

    /// Creates an error.
    package init(kind: Kind, message: String, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    /// True for the SQLSTATE of a unique-index violation.
    package var isUniqueViolation: Bool { sqlState == "23505" }

    /// True when a statement gave up waiting for a row lock (`lock_timeout`, SQLSTATE 55P03): another transaction,
    /// such as a game server's left open, holds the row. Transient: the same statement may pass later.
    package var isLockTimeout: Bool { sqlState == "55P03" }

    /// True for serialization failures and deadlocks, which are safe to retry as a whole transaction.
    package var isRetryableConflict: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// True unless the server refused the statement for what it says (bad data, a broken constraint, an error
    /// it raised): those fail again however often they are sent. Lost connections, a server shutting down,
    /// conflicts and shortages may pass.
    package var isTransient: Bool {
        guard kind == .query, let sqlState else { return true }
        return ["08", "40", "53", "55", "57", "58"].contains(String(sqlState.prefix(2)))
    }

    /// The message, with the SQLSTATE when there is one.
    package var description: String {
        let text = message.trimmingCharacters(in: .whitespacesAndNewlines)
        if let sqlState { return "\(text) (SQLSTATE \(sqlState))" }
        return text
    }
}

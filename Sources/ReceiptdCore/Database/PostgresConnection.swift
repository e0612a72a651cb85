import CLibPQ
import Foundation
import NIOPosix

/// One libpq connection with a thread of its own.
///
/// libpq calls block, so they never run on Swift's cooperative pool: every call hops to this
/// connection's dedicated thread and the caller awaits a continuation.
package final class PostgresConnection: @unchecked Sendable {
    // Touched only on `thread`, which serialises all access.
    private var handle: OpaquePointer?
    private let prepared = PreparedStatements()
    private let thread: NIOThreadPool

    private init(handle: OpaquePointer, thread: NIOThreadPool) {
        self.handle = handle
        self.thread = thread
    }

    /// Opens a connection. `connectionString` is a libpq key/value string or URI; empty means libpq's defaults and `PG*` variables.
    package static func connect(_ connectionString: String) async throws -> PostgresConnection {
        let thread = NIOThreadPool(numberOfThreads: 1)
        thread.start()
        do {
            let handle = try await Self.run(on: thread) { try Self.open(connectionString) }
            return PostgresConnection(handle: handle.value, thread: thread)
        } catch {
            try? await thread.shutdownGracefully()
            throw error
        }
    }

    private static func open(_ connectionString: String) throws -> UnsafeSendable<OpaquePointer> {
        // Parsed first, without connecting, to learn the password libpq reads. libpq quotes parts of a malformed
        // string, the password or pieces of it included, so its messages are masked here, where the string is
        // known, and no caller can log them unmasked.
        let parsedPassword = try password(libpqReads: connectionString)
        guard let handle = PQconnectdb(connectionString) else {
            throw PostgresError(kind: .connection, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = SecretRedaction.connectionFailure(
                String(cString: PQerrorMessage(handle)),
                connectionString: connectionString,
                parsedPassword: parsedPassword
            )
            PQfinish(handle)
            throw PostgresError(kind: .connection, message: message)
        }
        return UnsafeSendable(handle)
    }

    /// The password libpq reads from `connectionString` (nil: none), or an error without any quoted part of it.
    private static func password(libpqReads connectionString: String) throws -> String? {
        var error: UnsafeMutablePointer<CChar>?
        guard let options = PQconninfoParse(connectionString, &error) else {
            let message = error.map { String(cString: $0) } ?? "out of memory"
            if let error { PQfreemem(error) }
            throw PostgresError(kind: .connection, message: SecretRedaction.unparsable(message))
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password" { return option.pointee.val.map { String(cString: $0) } }
            option += 1
        }
        return nil
    }

    /// Runs `body` on the connection's thread with exclusive use of the connection.
    package func withSession<T: Sendable>(_ body: @escaping @Sendable (DatabaseSession) throws -> T) async throws -> T {
        try await Self.run(on: thread) { [self] in
            guard let handle else { throw PostgresError(kind: .connection, message: "connection is closed") }
            return try body(DatabaseSession(handle: handle, prepared: prepared))
        }
    }

    /// Runs one statement (see `DatabaseSession.execute`).
    @discardableResult
    package func execute(_ sql: String, _ parameters: [any SQLParameter] = []) async throws -> QueryResult {
        try await withSession { try $0.execute(sql, parameters) }
    }

    /// Closes the connection and stops its thread.
    package func close() async {
        _ = try? await Self.run(on: thread) { [self] in
            if let handle { PQfinish(handle) }
            handle = nil
        }
        try? await thread.shutdownGracefully()
    }
}

extension PostgresConnection {
    /// Runs `body` on `thread` and awaits it. Unlike `runIfActive`, work already asked for runs even if the
    /// calling task is cancelled: a shutdown still gets to put its jobs back, and no statement is half-skipped.
    private static func run<T: Sendable>(
        on thread: NIOThreadPool,
        _ body: @escaping @Sendable () throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            thread.submit { state in
                guard case .active = state else {
                    continuation.resume(throwing: PostgresError(kind: .connection, message: "connection is closed"))
                    return
                }
                continuation.resume(with: Result(catching: body))
            }
        }
    }
}

/// Carries a value that is safe to move across threads because its single owner serialises all use.
struct UnsafeSendable<Value>: @unchecked Sendable {
    let value: Value
    init(_ value: Value) { self.value = value }
}

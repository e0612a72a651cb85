import ArgumentParser
import Foundation
import ReceiptdCore

/// A command for operators: one `OperatorQueries` call, printed as JSON or as tables for people.
protocol OperatorCommand: AsyncParsableCommand {
    /// `--database-url` and `--json`.
    var options: OperatorOptions { get }
    /// How error messages name the command: `receiptd <name>: …`.
    static var errorName: String { get }
}

extension OperatorCommand {
    /// The command's name; a subcommand names its parent too.
    static var errorName: String { configuration.commandName ?? "receiptd" }

    /// Connects, runs `call`, prints its result on stdout; on failure writes a message to stderr and exits 1, 3 or 4.
    func perform<Value: Encodable>(
        _ call: (OperatorQueries) async throws -> Value,
        text: (Value) -> String
    ) async throws {
        let value: Value
        do {
            let connection = try await PostgresConnection.connect(options.connectionString)
            do {
                value = try await call(OperatorQueries(connection: connection, actor: ProcessInfo.processInfo.userName))
            } catch {
                await connection.close()
                throw error
            }
            await connection.close()
        } catch {
            throw report(error)
        }
        print(options.json ? try Self.json(value) : text(value))
    }

    /// Writes `error` to stderr, without the connection string's password, and returns the exit status for it.
    func report(_ error: any Error) -> ExitCode {
        let name = Self.errorName
        let (message, code): (String, ExitCode) =
            switch error {
            case OperatorError.notFound(let message): (message, OperatorExitCode.notFound)
            case OperatorError.refused(let message): (message, OperatorExitCode.refused)
            case let error as PostgresError where error.kind == .connection:
                ("cannot use the database: \(error)", OperatorExitCode.failure)
            case let error as PostgresError: ("database error: \(error)", OperatorExitCode.failure)
            default: ("\(error)", OperatorExitCode.failure)
            }
        let safe = SecretRedaction.redact(message, connectionString: options.connectionString)
        // One line, whatever stored text or multi-line server message it quotes.
        FileHandle.standardError.write(Data("receiptd \(name): \(safe.terminalSafe)\n".utf8))
        return code
    }

    /// One pretty-printed JSON document with snake_case keys, like the SQL columns.
    static func json(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.keyEncodingStrategy = .convertToSnakeCase
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }
}

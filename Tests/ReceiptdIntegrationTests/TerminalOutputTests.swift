import Foundation
import ReceiptdCore
import Testing

/// Stored text with control characters, printed by the operator commands: escapes, never raw bytes
/// that would recolour the operator's terminal, move its cursor or forge a line.
@Suite struct TerminalOutputTests {
    static let order = "o\u{1B}[31m-red\r\nforged line"
    /// `order` as the commands print it.
    static let shownOrder = #"o\u{1B}[31m-red\r\nforged line"#

    /// C0 controls other than the line feeds between lines, DEL, and C1 controls.
    static func rawControls(in text: String) -> [String] {
        text.unicodeScalars.filter { ($0.value < 0x20 && $0 != "\n") || (0x7F...0x9F).contains($0.value) }
            .map { String(format: "U+%04X", $0.value) }
    }

    @Test func jobsShowAndStatusEscapeStoredControlCharacters() async throws {
        try await Fixture.with { f in
            // Raw SQL, not enqueue_receipt, which may refuse such ids: whatever is stored must print safely.
            try await f.connection.execute(
                "INSERT INTO iap.orders (order_id, user_id, product_id) VALUES ($1, $2, $3)",
                [Self.order, "user\r\u{7F}", "gems\u{9B}2J\ttab"]
            )
            let job = try #require(
                try await f.value(
                    """
                    INSERT INTO iap.jobs (order_id, receipt_data, receipt_sha256) VALUES ($1, 'x', 'x') RETURNING id
                    """,
                    [Self.order]
                ).flatMap(Int64.init)
            )
            try await f.setJob(
                job,
                state: "running",
                secondsAgo: 600,
                error: "transport: \u{1B}]0;owned\u{07}reset\nby peer"
            )
            try await f.connection.execute(
                "UPDATE iap.jobs SET locked_by = $2 WHERE id = $1",
                [job, "host\u{1B}[2J:1:x"]
            )
            try await f.addAttempt(
                job: job,
                number: 1,
                result: "retry",
                errorClass: "transport\u{1B}[8m",
                error: "a\u{08}\u{08}b"
            )
            try await f.connection.execute("INSERT INTO iap.daemons (daemon) VALUES ($1)", ["daemon\u{1B}[1A:2:y"])

            let url = f.database.connectionString
            for arguments in [["jobs"], ["show", Self.order], ["status"]] {
                let run = try ReceiptdBinary.run(arguments + ["--database-url", url])
                #expect(run.status == 0, "\(arguments): \(run.stderr)")
                #expect(
                    Self.rawControls(in: run.stdout).isEmpty,
                    "\(arguments[0]) printed raw \(Self.rawControls(in: run.stdout))"
                )
                #expect(
                    !run.stdout.split(separator: "\n").contains { $0.hasPrefix("forged line") },
                    "\(arguments[0]) forged a line"
                )
                #expect(run.stdout.contains(Self.shownOrder), "\(arguments[0]):\n\(run.stdout)")
            }
            let show = try ReceiptdBinary.run(["show", Self.order, "--database-url", url])
            #expect(show.stdout.contains(#"user      user\r\u{7F}"#) && show.stdout.contains(#"gems\u{9B}2J\ttab"#))
            #expect(show.stdout.contains(#"transport\u{1B}[8m: a\u{8}\u{8}b"#))
            let status = try ReceiptdBinary.run(["status", "--database-url", url])
            #expect(status.stdout.contains(#"daemon\u{1B}[1A:2:y"#) && status.stdout.contains(#"host\u{1B}[2J:1:x"#))

            // Errors quote the id too.
            let cancel = try ReceiptdBinary.run(["cancel", Self.order + "\u{1B}[0m", "--database-url", url])
            #expect(Self.rawControls(in: cancel.stderr).isEmpty && !cancel.stderr.isEmpty, "\(cancel.stderr)")

            // JSON was already escaped by its encoder, and stays as it was.
            let json = try ReceiptdBinary.run(["jobs", "--json", "--database-url", url])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            #expect(list.first?["order_id"] as? String == Self.order)
        }
    }
}

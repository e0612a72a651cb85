import Foundation
import ReceiptdCore
import Testing

/// The operator commands as a shell sees them: output, stderr and exit status.
@Suite struct CommandLineTests {
    @Test func statusAndShowPrintJSONOrTables() async throws {
        try await Fixture.with { f in
            let url = f.database.connectionString
            try await f.enqueue("o1", receipt: Receipts.paying("1"))

            let status = try ReceiptdBinary.run(["status", "--json", "--database-url", url])
            #expect(status.status == 0, "\(status.stderr)")
            let document = try #require(
                try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
            )
            let states = try #require(document["states"] as? [[String: Any]])
            #expect(states.first?["state"] as? String == "pending" && states.first?["due_now"] as? Int == 1)

            let table = try ReceiptdBinary.run(["show", "o1", "--database-url", url])
            #expect(
                table.status == 0 && table.stdout.contains("order     o1") && table.stdout.contains("Deliveries: none")
            )

            let jobs = try ReceiptdBinary.run([
                "jobs", "--state", "pending", "--since", "1h", "--json", "--database-url", url,
            ])
            let list = try #require(try JSONSerialization.jsonObject(with: Data(jobs.stdout.utf8)) as? [[String: Any]])
            #expect(jobs.status == 0 && list.count == 1 && list.first?["order_id"] as? String == "o1")
        }
    }

    @Test func exitCodesSayNotFoundRefusedAndUsage() async throws {
        try await Fixture.with { f in
            let url = f.database.connectionString
            try await f.enqueue("o1", receipt: Receipts.paying("1"))

            let missing = try ReceiptdBinary.run(["show", "nope", "--database-url", url])
            #expect(missing.status == 3 && missing.stderr.contains("no order nope") && missing.stdout.isEmpty)
            let busy = try ReceiptdBinary.run(["retry", "o1", "--database-url", url])
            #expect(busy.status == 4 && busy.stderr.contains("already has pending job"))
            let cancelled = try ReceiptdBinary.run(["cancel", "o1", "--database-url", url])
            #expect(cancelled.status == 0 && cancelled.stdout.contains("cancelled"))
            let nothing = try ReceiptdBinary.run(["cancel", "o1", "--database-url", url])
            #expect(nothing.status == 4 && nothing.stderr.contains("no pending or running job"))
            let retried = try ReceiptdBinary.run(["retry", "o1", "--json", "--database-url", url])
            #expect(retried.status == 0 && retried.stdout.contains("\"order_id\" : \"o1\""))

            for usage in [
                ["jobs", "--since", "5 fortnights"], ["retry"], ["retry", "--failed"], ["jobs", "--state", "lost"],
                ["jobs", "--limit", "0"], ["enqueue", "--order", "o2"],
            ] {
                let run = try ReceiptdBinary.run(usage + ["--database-url", url])
                #expect(run.status == 2, "\(usage): \(run.stderr)")
            }
        }
    }

    @Test func enqueueReadsTheReceiptFromStdin() async throws {
        try await Fixture.with { f in
            let receipt = Receipts.paying("1")
            let run = try ReceiptdBinary.run(
                [
                    "enqueue", "--order", "o9", "--user", "u1", "--product", "gems", "--quantity", "3",
                    "--receipt-file", "-", "--database-url", f.database.connectionString,
                ],
                stdin: receipt + "\n"
            )
            #expect(run.status == 0, "\(run.stderr)")
            #expect(try await f.value("SELECT receipt_data FROM iap.jobs WHERE order_id = 'o9'") == receipt)
            #expect(try await f.value("SELECT quantity FROM iap.orders WHERE order_id = 'o9'") == "3")
        }
    }

    @Test func databaseErrorsExitOneAndNeverShowThePassword() throws {
        let secret = "s3cr%zzet-pw"
        let badURI = try ReceiptdBinary.run([
            "status", "--database-url", "postgresql://someone:\(secret)@127.0.0.1:1/x",
        ])
        #expect(badURI.status == 1 && !badURI.stderr.isEmpty)
        #expect(!badURI.stderr.contains("s3cr") && !badURI.stderr.contains(secret))
        let unreachable = try ReceiptdBinary.run([
            "jobs", "--database-url", "host=127.0.0.1 port=1 password='hunter2 x'",
        ])
        #expect(unreachable.status == 1 && unreachable.stderr.contains("cannot use the database"))
        #expect(!unreachable.stderr.contains("hunter2"))
    }

    @Test func runRefusesToStartWithoutTheBundleID() throws {
        let run = try ReceiptdBinary.run(["run", "--database-url", "host=127.0.0.1 port=1"])
        #expect(run.status == 78, "\(run.stderr)")
        #expect(run.stderr.contains("APPLE_BUNDLE_ID"))
        let sandbox = try ReceiptdBinary.run(["run", "--apple-bundle-id", "com.example.game", "--sandbox", "sometimes"])
        #expect(sandbox.status == 78 && sandbox.stderr.contains("RECEIPTD_SANDBOX"), "\(sandbox.stderr)")
    }

    /// Issue 17, item 1: the new setting is a `run` flag too, and a bad value exits 78 naming its variable.
    @Test func aBadTransactionIDPolicyExits78() throws {
        let run = try ReceiptdBinary.run([
            "run", "--apple-bundle-id", "com.example.game", "--transaction-id-without-token", "sometimes",
        ])
        #expect(run.status == 78 && run.stderr.contains("RECEIPTD_TRANSACTION_ID_WITHOUT_TOKEN"), "\(run.stderr)")
    }

    /// Issue 17, item 1: a receipt root file that cannot be read exits 78 naming `APPLE_RECEIPT_ROOT_CA_FILE`.
    @Test func anUnreadableReceiptRootExits78() throws {
        let run = try ReceiptdBinary.run([
            "run", "--apple-bundle-id", "com.example.game",
            "--apple-receipt-root-ca-file", "/nonexistent/receipt-root.pem",
        ])
        #expect(run.status == 78 && run.stderr.contains("APPLE_RECEIPT_ROOT_CA_FILE"), "\(run.stderr)")
    }

    /// Issue 22: the webhook commands' usage errors exit 2 before connecting (the database is unreachable here).
    @Test func webhookCommandsRefuseBadArgumentsWithStatusTwo() throws {
        for usage in [
            ["webhooks", "--state", "sent"], ["webhooks", "--limit", "0"], ["webhooks", "--since", "yesterday"],
            ["webhooks", "replay"], ["webhooks", "replay", "1234"], ["webhooks", "replay", "msg_a b"],
            ["webhooks", "enable", "now"], ["fake-webhook-receiver"],
            ["fake-webhook-receiver", "--secret-file", "/dev/null", "--port", "70000"],
        ] {
            let run = try ReceiptdBinary.run(
                usage + (usage[0] == "webhooks" ? ["--database-url", "host=127.0.0.1 port=1"] : [])
            )
            #expect(run.status == 2 && run.stdout.isEmpty && !run.stderr.isEmpty, "\(usage): \(run.stderr)")
        }
        let down = try ReceiptdBinary.run(["webhooks", "--database-url", "host=127.0.0.1 port=1"])
        #expect(
            down.status == 1 && down.stderr.hasPrefix("receiptd webhooks: cannot use the database"),
            "\(down.stderr)"
        )
    }
}

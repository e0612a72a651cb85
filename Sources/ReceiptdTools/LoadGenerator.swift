import Foundation
import ReceiptdCore

/// Enqueues synthetic orders through `iap.enqueue_receipt` and `iap.enqueue_transaction`, many calls per statement, optionally at a
/// fixed rate; ``waitForOutcomes(of:timeout:progress:)`` then checks every outcome against the mix.
package struct LoadGenerator: Sendable {
    static let enqueueSQL = """
        SELECT iap.enqueue_receipt(x.o, x.u, x.p, x.r, x.q)
        FROM jsonb_to_recordset($1::jsonb) AS x(o text, u text, p text, r text, q int)
        """
    /// Apart from the receipts' statement, so a load without transactions runs on a schema that predates them.
    static let enqueueTransactionsSQL = """
        SELECT iap.enqueue_transaction(x.o, x.u, x.p, x.r, x.q)
        FROM jsonb_to_recordset($1::jsonb) AS x(o text, u text, p text, r text, q int)
        """
    /// The same for Google Play purchase tokens.
    static let enqueueGooglePurchasesSQL = """
        SELECT iap.enqueue_google_purchase(x.o, x.u, x.p, x.r, x.q)
        FROM jsonb_to_recordset($1::jsonb) AS x(o text, u text, p text, r text, q int)
        """

    let configuration: Configuration
    let databaseURL: String

    /// Creates a generator for the database at `databaseURL`.
    package init(configuration: Configuration, databaseURL: String) {
        self.configuration = configuration
        self.databaseURL = databaseURL
    }

    /// Enqueues every order (and the `replace` orders' newer receipts); `progress` hears the count made so far.
    package func run(progress: @Sendable (Int) -> Void = { _ in }) async throws -> LoadSummary {
        let connection = try await PostgresConnection.connect(databaseURL)
        do {
            let summary = try await run(on: connection, progress: progress)
            await connection.close()
            return summary
        } catch {
            await connection.close()
            throw error
        }
    }

    private func run(on connection: PostgresConnection, progress: @Sendable (Int) -> Void) async throws -> LoadSummary {
        let factory = LoadOrderFactory(users: configuration.users, signer: configuration.signer)
        let total = configuration.orders
        // At a set rate, a batch holds about 20 ms of orders so the pace stays smooth.
        let batchSize =
            configuration.rate.map { max(1, min(configuration.batchSize, Int($0 / 50))) } ?? configuration.batchSize
        var later: [(due: ContinuousClock.Instant, call: LoadEnqueue)] = []
        var made = 0
        var slot = 0
        var replacements = 0
        let started = ContinuousClock.now
        while made < total {
            if let rate = configuration.rate { try await Task.sleep(until: started + .seconds(Double(made) / rate)) }
            var batch: [LoadEnqueue] = []
            while batch.count < batchSize, made < total {
                var kind = configuration.mix.kind(at: slot)
                if kind == .replay, total - made < 2 { kind = .full }
                let calls = try await factory.calls(slot: slot, kind: kind)
                batch += calls.now
                made += calls.now.count
                slot += 1
                if let call = calls.later { later.append((.now + .seconds(configuration.replaceDelay), call)) }
            }
            try await send(batch, on: connection)
            replacements += try await sendDue(&later, factory: factory, on: connection, all: false)
            progress(made)
        }
        if let last = later.last?.due { try await Task.sleep(until: last) }
        replacements += try await sendDue(&later, factory: factory, on: connection, all: true)
        let seconds = (ContinuousClock.now - started).seconds
        return LoadSummary(
            runID: factory.runID,
            orders: made,
            replacements: replacements,
            seconds: seconds,
            ordersPerSecond: Double(made) / max(seconds, 1e-9)
        )
    }

    /// Sends the newer receipts whose time has come, in their own statement and in order id order,
    /// which keeps the row locks in the order the daemon takes them.
    private func sendDue(
        _ later: inout [(due: ContinuousClock.Instant, call: LoadEnqueue)],
        factory: LoadOrderFactory,
        on connection: PostgresConnection,
        all: Bool
    ) async throws -> Int {
        let now = ContinuousClock.now
        let due = later.prefix { all || $0.due <= now }
        guard !due.isEmpty else { return 0 }
        later.removeFirst(due.count)
        try await send(due.map { factory.refreshed($0.call) }.sorted { $0.o < $1.o }, on: connection)
        return due.count
    }

    /// One statement for the whole batch, retried when it loses a deadlock to a daemon (it changed nothing then).
    private func send(_ batch: [LoadEnqueue], on connection: PostgresConnection) async throws {
        for (kind, statement) in [
            (JobKind.receipt, Self.enqueueSQL), (.transaction, Self.enqueueTransactionsSQL),
            (.googlePurchase, Self.enqueueGooglePurchasesSQL),
        ] {
            try await send(batch.filter { $0.kind == kind }, statement: statement, on: connection)
        }
    }

    private func send(_ batch: [LoadEnqueue], statement: String, on connection: PostgresConnection) async throws {
        guard !batch.isEmpty else { return }
        let rows = String(decoding: try JSONEncoder().encode(batch), as: UTF8.self)
        for attempt in 1... {
            do {
                try await connection.execute(statement, [rows])
                return
            } catch let error as PostgresError where error.isRetryableConflict && attempt < 5 {
                continue
            }
        }
    }
}

import Foundation
import ReceiptdCore

/// A subscription title's ledger at a successful game's size (issue #48, item 1), written with set-based SQL into a
/// migrated, empty database, as the daemon's own path would have left it:
///
/// - `subscriptions` subscriptions (`k` = 1…N), three in five the App Store's (`apple:<original transaction id>`),
///   the rest Google Play's (`google:<order id>`, with a purchase token); 80% `active`, 4% `grace_period`, 4%
///   `billing_retry`, 1% `on_hold` and 1% `paused` (Google's), 9% `expired` and 1% `revoked` (refunded, Apple's);
/// - players owning one, two or three of them in turn (`player-<n>`, N / 2 players), each of another product;
/// - one to seven monthly paid periods each (four on average), each a ledger row (`auto_renewable`, naming its
///   subscription and period) paying its own order, the first the checkout's (`sub-<k>`), every later one its
///   `renewal:<transaction_id>`, each with its succeeded job (a signed transaction, or the purchase token) and its
///   attempt; granted, except the latest period of one entitled subscription in 50; the first owner of each App
///   Store subscription, the acknowledgement of each Google one;
/// - the subscription's row as the last news left it (`read_due_at` from `iap.subscription_read_due`) and its
///   history, one row per period and one more for a state the last period ended in;
/// - for one player in five, a non-consumable and two consumables, each an order with its job, attempt and ledger
///   row (and its first owner, or its acknowledgement or consumption).
///
/// Every value derives from `k` (or the player's number), so each table is written independently, in chunks on
/// parallel connections, with every index in place. The triggers stay in place too, but the seed's sessions do not
/// fire them (`session_replication_role = replica`): the seed writes what they would (the history, a revoked row's
/// units) and nothing they would notify anyone of, and the foreign keys hold by construction. Jobs that finished
/// more than the default retention (30 days) ago are marked `kept`, as the purge leaves them once it has walked
/// past them. Then `VACUUM (ANALYZE)`, which autovacuum would otherwise run in the middle of a measurement.
package enum SubscriptionSeed {
    /// Players for `subscriptions` subscriptions: one, two and three in turn, so N / 2.
    package static func players(subscriptions: Int) -> Int {
        guard subscriptions > 0 else { return 0 }
        return 3 * ((subscriptions - 1) / 6) + [0, 1, 1, 2, 2, 2][(subscriptions - 1) % 6] + 1
    }

    /// The user id of player `number` (0 ≤ number < `players`).
    package static func userID(player number: Int) -> String { "player-\(number)" }

    /// The shape of subscription `k`: its state, store, player, product slot (1…3), periods, the end of its latest
    /// period (`ends`), whether it renews; then its product, its first period's transaction id (which names it),
    /// its purchase token (Google's), its entitlement and the time of its latest news.
    static let subscription = """
        CROSS JOIN LATERAL (
            SELECT h.state,
                   CASE WHEN h.state IN ('on_hold', 'paused') THEN 'google' WHEN h.state = 'revoked' THEN 'apple'
                        WHEN mod(hashint4(k + 1) & 2147483647, 5) < 3 THEN 'apple' ELSE 'google' END AS store,
                   'player-' || (3 * ((k - 1) / 6) + (ARRAY[0, 1, 1, 2, 2, 2])[1 + (k - 1) % 6]) AS user_id,
                   (ARRAY[1, 1, 2, 1, 2, 3])[1 + (k - 1) % 6] AS slot,
                   1 + mod(hashint4(k + 2) & 2147483647, 7) AS periods,
                   $3::timestamptz + CASE
                       WHEN h.state = 'active' THEN make_interval(secs => 3600 + mod(hashint4(k + 3) & 2147483647, 29 * 86400))
                       WHEN h.state = 'grace_period' THEN -make_interval(secs => mod(hashint4(k + 3) & 2147483647, 5 * 86400))
                       WHEN h.state IN ('expired', 'revoked')
                           THEN -make_interval(secs => 86400 + mod(hashint4(k + 3) & 2147483647, 180 * 86400))
                       ELSE -make_interval(secs => 3600 + mod(hashint4(k + 3) & 2147483647, 20 * 86400)) END AS ends,
                   h.state NOT IN ('expired', 'revoked') AND mod(hashint4(k + 4) & 2147483647, 10) <> 0 AS auto_renew
            FROM (
                SELECT CASE WHEN x.r < 800 THEN 'active' WHEN x.r < 840 THEN 'grace_period'
                            WHEN x.r < 880 THEN 'billing_retry' WHEN x.r < 890 THEN 'on_hold' WHEN x.r < 900 THEN 'paused'
                            WHEN x.r < 990 THEN 'expired' ELSE 'revoked' END AS state
                FROM (SELECT mod(hashint4(k) & 2147483647, 1000) AS r) AS x
            ) AS h
        ) AS s
        CROSS JOIN LATERAL (
            SELECT CASE s.store
                       WHEN 'apple' THEN (ARRAY['com.example.vip.monthly', 'com.example.pass.monthly',
                                                'com.example.club.monthly'])[s.slot]
                       ELSE (ARRAY['vip_monthly', 'pass_monthly', 'club_monthly'])[s.slot] END AS product_id,
                   CASE s.store WHEN 'apple' THEN (4000000000000000 + 8::bigint * k)::text
                        ELSE 'GPA.3388-' || lpad(k::text, 10, '0') END AS first_id,
                   CASE WHEN s.store = 'google' THEN md5('t' || k) || '.' || md5('u' || k) || md5('v' || k) END AS token,
                   CASE s.state WHEN 'active' THEN s.ends WHEN 'grace_period' THEN s.ends + interval '16 days' END
                       AS entitled_until,
                   CASE s.state WHEN 'active' THEN s.ends - interval '30 days' WHEN 'revoked' THEN s.ends - interval '25 days'
                        ELSE s.ends END AS news
        ) AS p
        """

    /// The periods `j` = 0… of subscription `k`: each one's transaction id, job id, start and end, order, times,
    /// and the input its job verified.
    static let periods = """
        CROSS JOIN LATERAL generate_series(0, s.periods - 1) AS j
        CROSS JOIN LATERAL (
            SELECT CASE WHEN s.store = 'apple' THEN (4000000000000000 + 8::bigint * k + j)::text
                        WHEN j = 0 THEN p.first_id ELSE p.first_id || '..' || (j - 1) END AS transaction_id,
                   8::bigint * k + j AS job_id,
                   s.ends - make_interval(days => 30 * (s.periods - j)) AS starts,
                   s.ends - make_interval(days => 30 * (s.periods - 1 - j)) AS ends,
                   j = s.periods - 1 AS latest
        ) AS t
        CROSS JOIN LATERAL (
            SELECT CASE WHEN j = 0 THEN 'sub-' || k ELSE 'renewal:' || t.transaction_id END AS order_id,
                   t.starts + interval '4 seconds' AS delivered_at,
                   CASE WHEN t.latest AND s.state IN ('active', 'grace_period') AND k % 50 = 0 THEN NULL
                        ELSE t.starts + interval '14 seconds' END AS granted_at,
                   CASE WHEN t.latest AND s.state = 'revoked' THEN t.starts + interval '5 days' END AS revoked_at,
                   CASE WHEN s.store = 'google' THEN p.token
                        ELSE 'eyJhbGciOiJFUzI1NiIsIng1YyI6WyJzZWVkIl19.' || repeat(md5(t.transaction_id), 12) || '.'
                             || md5('s' || t.transaction_id) END AS input
        ) AS d
        """

    /// The statements of the subscriptions, each over `k` in `$1 … $2`, at the seed's clock `$3` (one time for
    /// every statement, so that the tables agree).
    static let subscriptionStatements = [
        """
        INSERT INTO iap.orders (order_id, user_id, product_id, quantity, created_at, checkout_at, outcome,
                                delivered_quantity, outcome_at, status)
        SELECT d.order_id, s.user_id, p.product_id, 1, t.starts - (j = 0)::int * interval '1 minute',
               CASE WHEN j = 0 THEN t.starts - interval '1 minute' END, 'full', 1, d.delivered_at,
               CASE WHEN d.granted_at IS NULL THEN 'verified' ELSE 'finished' END::iap.order_status
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        \(periods)
        """,
        """
        INSERT INTO iap.jobs (id, order_id, kind, receipt_data, receipt_sha256, state, attempts, run_at, environment,
                              created_at, started_at, finished_at, submitted_by, kept)
        SELECT t.job_id, d.order_id, CASE s.store WHEN 'apple' THEN 'transaction' ELSE 'google_purchase' END, d.input,
               encode(sha256(convert_to(d.input, 'UTF8')), 'hex'), 'succeeded', 1, t.starts, 'Production', t.starts,
               t.starts + interval '3 seconds', d.delivered_at,
               CASE WHEN j = 0 THEN s.user_id ELSE s.store || '_notification' END,
               d.delivered_at < $3::timestamptz - interval '30 days'
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        \(periods)
        """,
        """
        INSERT INTO iap.attempts (job_id, order_id, attempt, daemon, started_at, finished_at, duration_ms, environment,
                                  http_status, result)
        SELECT t.job_id, d.order_id, 1, 'seed-host:1:bench', d.delivered_at - interval '120 milliseconds',
               d.delivered_at, 120, 'Production', CASE WHEN s.store = 'google' THEN 200 END, 'verified'
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        \(periods)
        """,
        """
        INSERT INTO iap.deliveries (transaction_id, order_id, user_id, product_id, quantity, purchase_date, environment,
                                    job_id, delivered_at, granted_at, store, product_kind, ownership, price, currency,
                                    subscription_id, period_start, period_end, revoked_at, revocation_reason,
                                    revoked_quantity, revocation_handled_at)
        SELECT t.transaction_id, d.order_id, s.user_id, p.product_id, 1, t.starts, 'Production', t.job_id,
               d.delivered_at, d.granted_at, s.store, 'auto_renewable', 'purchased', 4.99, 'USD',
               s.store || ':' || p.first_id, t.starts, t.ends, d.revoked_at,
               CASE WHEN d.revoked_at IS NOT NULL THEN 'refund' END, (d.revoked_at IS NOT NULL)::int,
               d.revoked_at + interval '1 minute'
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        \(periods)
        """,
        """
        INSERT INTO iap.subscriptions (subscription_id, store, user_id, order_id, product_id, group_id, state,
                                       entitled_until, expires_at, auto_renew, environment, ownership,
                                       latest_transaction_id, store_time, created_at, updated_at, read_due_at,
                                       purchase_token)
        SELECT s.store || ':' || p.first_id, s.store, s.user_id, 'sub-' || k, p.product_id,
               CASE WHEN s.store = 'apple' THEN (21000000 + s.slot)::text END, s.state, p.entitled_until, s.ends,
               s.auto_renew, 'Production', 'purchased',
               CASE WHEN s.store = 'apple' THEN (4000000000000000 + 8::bigint * k + s.periods - 1)::text
                    WHEN s.periods = 1 THEN p.first_id ELSE p.first_id || '..' || (s.periods - 2) END,
               p.news, s.ends - make_interval(days => 30 * s.periods), p.news,
               iap.subscription_read_due(s.state, p.entitled_until), p.token
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        """,
        // One row per period, then one for the state the last period ended in; in order, as the trigger writes them.
        """
        INSERT INTO iap.subscription_history (subscription_id, state, product_id, entitled_until, auto_renew, store_time,
                                              at, user_id)
        SELECT s.store || ':' || p.first_id, CASE WHEN j < s.periods THEN 'active' ELSE s.state END, p.product_id,
               CASE WHEN j < s.periods THEN s.ends - make_interval(days => 30 * (s.periods - 1 - j))
                    ELSE p.entitled_until END,
               CASE WHEN j = s.periods - (s.state = 'active')::int THEN s.auto_renew ELSE true END,
               h.at, h.at, s.user_id
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        CROSS JOIN LATERAL generate_series(0, s.periods - (s.state = 'active')::int) AS j
        CROSS JOIN LATERAL (
            SELECT CASE WHEN j < s.periods THEN s.ends - make_interval(days => 30 * (s.periods - j)) ELSE p.news END AS at
        ) AS h
        ORDER BY k, j
        """,
        """
        INSERT INTO iap.transaction_owners (original_transaction_id, user_id, order_id, first_delivered_at)
        SELECT p.first_id, s.user_id, 'sub-' || k, s.ends - make_interval(days => 30 * s.periods) + interval '4 seconds'
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        WHERE s.store = 'apple'
        """,
        """
        INSERT INTO iap.google_finalizations (transaction_id, order_id, product_id, purchase_token, action, created_at,
                                              overdue_at, run_at, attempts, done_at)
        SELECT p.first_id, 'sub-' || k, p.product_id, p.token, 'acknowledge_subscription', a.at, a.at + interval '1 hour',
               a.at, 1, a.at + interval '2 seconds'
        FROM generate_series($1::int, $2::int) AS k
        \(subscription)
        CROSS JOIN LATERAL (SELECT s.ends - make_interval(days => 30 * s.periods) + interval '4 seconds' AS at) AS a
        WHERE s.store = 'google'
        """,
    ]

    /// The products the seed sells, as the settles record what the stores say of them.
    static let products = """
        INSERT INTO iap.products (store, product_id, kind, source, store_kind)
        SELECT v.store, v.product_id, v.kind, 'store', v.kind
        FROM (VALUES ('apple', 'com.example.vip.monthly', 'auto_renewable'),
                     ('apple', 'com.example.pass.monthly', 'auto_renewable'),
                     ('apple', 'com.example.club.monthly', 'auto_renewable'),
                     ('google', 'vip_monthly', 'auto_renewable'), ('google', 'pass_monthly', 'auto_renewable'),
                     ('google', 'club_monthly', 'auto_renewable'),
                     ('apple', 'com.example.remove_ads', 'non_consumable'),
                     ('apple', 'com.example.starter_pack', 'non_consumable'),
                     ('apple', 'com.example.gems100', 'consumable'), ('apple', 'com.example.gems500', 'consumable'),
                     ('google', 'remove_ads', 'non_consumable'), ('google', 'starter_pack', 'non_consumable'),
                     ('google', 'gems100', 'consumable'), ('google', 'gems500', 'consumable'))
             AS v (store, product_id, kind)
        ON CONFLICT (store, product_id) DO NOTHING
        """

    /// Writes `subscriptions` subscriptions (and their players' purchases) into the migrated, empty database at
    /// `connectionString`, in chunks of `chunk` subscriptions on `connections` parallel connections, then vacuums
    /// and analyzes it. Returns the seconds it took. `say` hears the progress.
    package static func write(
        subscriptions: Int,
        connectionString: String,
        connections: Int = 2,
        chunk: Int = 25_000,
        say: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> Double {
        let started = ContinuousClock.now
        let players = players(subscriptions: subscriptions)
        let size = max(1, chunk)
        let clock = try await now(connectionString)
        var work: [(statements: [String], parameters: [any SQLParameter])] = []
        for low in stride(from: 1, through: subscriptions, by: size) {
            work.append((subscriptionStatements, [low, min(subscriptions, low + size - 1), clock]))
        }
        // Players hold two subscriptions on average: a chunk of players is about as much work.
        for low in stride(from: 0, to: players, by: size / 2 + 1) {
            work.append((purchaseStatements, [low, min(players - 1, low + size / 2), subscriptions, clock]))
        }
        let parts = max(1, connections)
        let total = work.count
        let done = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for part in 0..<parts {
                let mine = stride(from: part, to: work.count, by: parts).map { work[$0] }
                group.addTask {
                    let connection = try await PostgresConnection.connect(connectionString)
                    do {
                        // The planner guesses 1,000 rows per generate_series, and would compile each statement
                        // with LLVM for seconds. The triggers' work is the seed's own (see above).
                        try await connection.execute("SET jit = off")
                        try await connection.execute("SET session_replication_role = replica")
                        try await connection.execute("SET synchronous_commit = off")
                        for item in mine {
                            for statement in item.statements {
                                try await connection.execute(statement, item.parameters)
                            }
                            let finished = await done.increment()
                            if finished % max(1, total / 10) == 0 || finished == total {
                                say("seed: \(finished) of \(total) chunks written")
                            }
                        }
                        await connection.close()
                    } catch {
                        await connection.close()
                        throw error
                    }
                }
            }
            try await group.waitForAll()
        }
        let connection = try await PostgresConnection.connect(connectionString)
        do {
            try await connection.execute(products)
            try await connection.execute(
                "SELECT setval(pg_get_serial_sequence('iap.jobs', 'id'), (SELECT max(id) FROM iap.jobs))"
            )
            say("seed: VACUUM (ANALYZE)")
            // A fixed statement with no parameter; VACUUM runs outside a transaction, so through the simple protocol.
            try await connection.withSession { try $0.executeScript("VACUUM (ANALYZE)") }
            await connection.close()
        } catch {
            await connection.close()
            throw error
        }
        let elapsed = ContinuousClock.now - started
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    /// The database's time, which the seed's rows are placed around.
    private static func now(_ connectionString: String) async throws -> String {
        let connection = try await PostgresConnection.connect(connectionString)
        do {
            let clock = try await connection.execute("SELECT now()::text AS now").first?.string("now")
            await connection.close()
            guard let clock else { throw ToolError("the database did not say its time") }
            return clock
        } catch {
            await connection.close()
            throw error
        }
    }

    /// Chunks written so far, shared by the seed's connections.
    private actor Counter {
        var value = 0

        func increment() -> Int {
            value += 1
            return value
        }
    }
}

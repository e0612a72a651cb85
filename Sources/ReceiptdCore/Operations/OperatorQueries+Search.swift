import Foundation

extension OperatorQueries {
    /// The longest text `search` looks up; a longer one finds nothing (no id or token is that long).
    package static let searchTextMaxLength = 4096

    /// What `text` names, each thing once: a user id (of some order), an order id, a transaction id (a ledger row,
    /// an original transaction id, an unclaimed payment) or a Google purchase token (of a job, an acknowledgement,
    /// an unclaimed payment). Every lookup is an equality on an index, so the answer stays fast with millions of
    /// orders. Empty or blank text finds nothing.
    package func search(_ text: String) async throws -> [SearchHit] {
        let text = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty, text.utf8.count <= Self.searchTextMaxLength else { return [] }
        let rows = try await connection.execute(Self.searchQuery, [text]).namedRows
        var hits: [SearchHit] = []
        for row in rows {
            guard let kind = SearchHit.Kind(rawValue: try row.string("kind")) else { continue }
            let id = try row.string("id")
            guard !hits.contains(where: { $0.kind == kind && $0.id == id }) else { continue }
            hits.append(
                SearchHit(
                    kind: kind,
                    id: id,
                    matched: try row.string("matched"),
                    userID: row["user_id"],
                    productID: row["product_id"],
                    outcome: row["outcome"]
                )
            )
        }
        return hits
    }

    /// `search`'s statement (`$1` the text): one index lookup per branch (orders_user, the primary keys, jobs_google_token,
    /// google_finalizations_token, unclaimed_payments_token of migration 15), in the order hits are listed.
    package static let searchQuery = """
        (SELECT 'player' AS kind, o.user_id AS id, 'user id' AS matched, o.user_id, NULL AS product_id,
                NULL AS outcome, 1 AS rank
         FROM iap.orders o WHERE o.user_id = $1 LIMIT 1)
        UNION ALL
        SELECT 'order', o.order_id, 'order id', o.user_id, o.product_id, o.outcome::text, 2
        FROM iap.orders o WHERE o.order_id = $1
        UNION ALL
        SELECT 'order', o.order_id, 'transaction id', o.user_id, o.product_id, o.outcome::text, 3
        FROM iap.deliveries d JOIN iap.orders o ON o.order_id = d.order_id WHERE d.transaction_id = $1
        UNION ALL
        SELECT 'order', o.order_id, 'original transaction id', o.user_id, o.product_id, o.outcome::text, 4
        FROM iap.transaction_owners t JOIN iap.orders o ON o.order_id = t.order_id
        WHERE t.original_transaction_id = $1
        UNION ALL
        SELECT 'unclaimed_payment', u.transaction_id, 'transaction id', u.user_id, u.product_id, NULL, 5
        FROM iap.unclaimed_payments u WHERE u.transaction_id = $1 AND u.assigned_at IS NULL
        UNION ALL
        SELECT 'order', o.order_id, 'purchase token', o.user_id, o.product_id, o.outcome::text, 6
        FROM iap.jobs j JOIN iap.orders o ON o.order_id = j.order_id
        WHERE j.kind = 'google_purchase' AND j.receipt_sha256 = encode(sha256(convert_to($1, 'UTF8')), 'hex')
          AND j.receipt_data = $1
        UNION ALL
        SELECT 'order', o.order_id, 'purchase token', o.user_id, o.product_id, o.outcome::text, 7
        FROM iap.google_finalizations f JOIN iap.orders o ON o.order_id = f.order_id WHERE f.purchase_token = $1
        UNION ALL
        SELECT 'unclaimed_payment', u.transaction_id, 'purchase token', u.user_id, u.product_id, NULL, 8
        FROM iap.unclaimed_payments u WHERE u.purchase_token = $1 AND u.assigned_at IS NULL
        ORDER BY rank, id
        LIMIT 100
        """
}

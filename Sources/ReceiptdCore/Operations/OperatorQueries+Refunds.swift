extension OperatorQueries {
    /// The refund requests of `userID` (all players' when nil), in `state` (any when nil), the nearest deadline
    /// first among open ones, then the newest; at most `limit`.
    package func refundRequests(
        userID: String? = nil,
        state: RefundRequestState? = nil,
        limit: Int = 50
    ) async throws -> [RefundRequestSummary] {
        try await connection.execute(Self.refundRequestsQuery, [userID, state?.rawValue, limit]).namedRows.map(
            RefundRequestSummary.init(row:)
        )
    }

    /// The refund requests of player `$1` (all when NULL) in state `$2` (any when NULL), open ones first by
    /// deadline, then the newest; at most `$3`.
    static let refundRequestsQuery = """
        SELECT \(RefundRequestSummary.columns)
        FROM iap.refund_requests r
        WHERE ($1::text IS NULL OR r.user_id = $1) AND ($2::text IS NULL OR r.state = $2)
        ORDER BY r.state IN ('waiting', 'answering') DESC,
                 CASE WHEN r.state IN ('waiting', 'answering') THEN r.answer_by END,
                 r.received_at DESC, r.request_id
        LIMIT $3
        """

    /// `iap.operator_answer_refund`: answers a waiting request for the game (`answered_by` operator), recorded as
    /// `answer_refund`; returns the request as it is then. A bad value or a request answered already is refused,
    /// an unknown one not found, both recorded too.
    package func answerRefund(
        requestID: String,
        preference: RefundPreference,
        consumedMilliunits: Int?
    ) async throws -> RefundRequestSummary {
        let rows = try await audited(.answerRefund, target: requestID, orderID: nil) { session in
            try session.execute(
                "SELECT iap.operator_answer_refund($1, $2, $3)",
                [requestID, consumedMilliunits, preference.rawValue]
            )
            return try session.execute(
                "SELECT \(RefundRequestSummary.columns) FROM iap.refund_requests r WHERE r.request_id = $1 "
                    + "ORDER BY r.store LIMIT 1",
                [requestID]
            )
        }
        guard let row = rows.namedRows.first else { throw OperatorError.notFound("no refund request \(requestID)") }
        return try RefundRequestSummary(row: row)
    }
}

extension OrderDetail.Order {
    /// Reads the `iap.orders` row (times as UTC text).
    init(row: QueryResult.Row) throws {
        self.init(
            orderID: try row.string("order_id"),
            userID: try row.string("user_id"),
            productID: try row.string("product_id"),
            quantity: try row.int("quantity"),
            deliveredQuantity: try row.int("delivered_quantity"),
            outcome: row["outcome"],
            createdAt: try row.string("created_at"),
            outcomeAt: row["outcome_at"]
        )
    }
}

extension OrderDetail.Job {
    /// Reads an `iap.jobs` row and attaches its attempts.
    init(row: QueryResult.Row, attemptLog: [OrderDetail.Attempt]) throws {
        self.init(
            id: try row.int64("id"),
            kind: try JobKind(row.string("kind")),
            state: try row.jobState(),
            attempts: try row.int("attempts"),
            environment: row["environment"],
            createdAt: try row.string("created_at"),
            runAt: try row.string("run_at"),
            startedAt: row["started_at"],
            finishedAt: row["finished_at"],
            lastError: row["last_error"],
            supersededBy: row.optionalInt64("superseded_by"),
            lockedBy: row["locked_by"],
            attemptLog: attemptLog
        )
    }
}

extension OrderDetail.Attempt {
    /// Reads an `iap.attempts` row.
    init(row: QueryResult.Row) throws {
        self.init(
            attempt: try row.int("attempt"),
            result: try row.string("result"),
            appleStatus: row.optionalInt("apple_status"),
            httpStatus: row.optionalInt("http_status"),
            environment: row["environment"],
            durationMs: try row.int("duration_ms"),
            errorClass: row["error_class"],
            error: row["error"],
            daemon: row["daemon"],
            finishedAt: try row.string("finished_at")
        )
    }
}

extension OrderDetail.Delivery {
    /// Reads an `iap.deliveries` row.
    init(row: QueryResult.Row) throws {
        self.init(
            transactionID: try row.string("transaction_id"),
            jobID: row.optionalInt64("job_id"),
            quantity: try row.int("quantity"),
            purchaseDate: row["purchase_date"],
            environment: row["environment"],
            deliveredAt: try row.string("delivered_at"),
            revokedAt: row["revoked_at"],
            revocationReason: row["revocation_reason"],
            revocationPercentage: row.optionalInt("revocation_percentage"),
            revocationHandledAt: row["revocation_handled_at"],
            revokedQuantity: try row.int("revoked_quantity"),
            revocationHandledQuantity: try row.int("revocation_handled_quantity"),
            productKind: row["product_kind"],
            ownership: row["ownership"],
            price: row["price"],
            currency: row["currency"],
            offerType: row["offer_type"],
            offerID: row["offer_id"],
            purchaseOptionID: row["purchase_option_id"]
        )
    }
}

extension OrderDetail.ProvisionalGrant {
    /// Reads an `iap.provisional_grants` row.
    init(row: QueryResult.Row) throws {
        guard let state = ProvisionalGrantState(rawValue: try row.string("state")),
            let cause = ProvisionalGrantCause(rawValue: try row.string("cause"))
        else {
            throw PostgresError(kind: .query, message: "provisional_grants: unknown state or cause")
        }
        self.init(
            state: state,
            cause: cause,
            productID: try row.string("product_id"),
            quantity: try row.int("quantity"),
            jobID: row.optionalInt64("job_id"),
            createdAt: try row.string("created_at"),
            grantedAt: row["granted_at"],
            resolvedAt: row["resolved_at"],
            refutedBy: row["refuted_by"],
            replaced: try row.bool("replaced"),
            revocationHandledAt: row["revocation_handled_at"]
        )
    }
}

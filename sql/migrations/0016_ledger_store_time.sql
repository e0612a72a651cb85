-- Migration 16: a transaction's store news takes effect in the store's own order, whatever order it arrives in
-- (issue #32). Each ledger row keeps the store's time of the last news applied to it; news older than that
-- changes nothing (its notification's result is `superseded`).

-- Apple's signedDate, Google's eventTimeMillis for a push and voidedTimeMillis for the voided poll. NULL: no
-- store news applied yet.
ALTER TABLE iap.deliveries ADD COLUMN store_time timestamptz;

-- Rows news was applied to before this migration: the store's time of the latest of it, as processing reads it
-- (a notification without a signed date dates from its receipt; a Google push from its event time).
UPDATE iap.deliveries d SET store_time = n.latest
FROM (SELECT store, transaction_id,
             max(CASE WHEN store = 'google' AND payload -> 'notification' ->> 'eventTimeMillis' ~ '^[0-9]{1,15}$'
                      THEN to_timestamp((payload -> 'notification' ->> 'eventTimeMillis')::bigint / 1000.0)
                      ELSE coalesce(signed_at, received_at) END) AS latest
      FROM iap.store_notifications
      WHERE processed_at IS NOT NULL AND transaction_id IS NOT NULL
        AND result IN ('revoked', 'reinstated', 'nothing_to_reinstate', 'partly_revoked')
      GROUP BY store, transaction_id) n
WHERE d.store = n.store AND d.transaction_id = n.transaction_id;

-- Google's voided poll leaves no notification: its voiding times are the revocation's and the partial refunds'.
UPDATE iap.deliveries d SET store_time = greatest(d.store_time, d.revoked_at, p.last_voided_at)
FROM (SELECT g.transaction_id, max(r.voided_at) AS last_voided_at
      FROM iap.deliveries g LEFT JOIN iap.google_partial_refunds r USING (transaction_id)
      WHERE g.store = 'google' AND (g.revoked_at IS NOT NULL OR r.transaction_id IS NOT NULL)
      GROUP BY g.transaction_id) p
WHERE d.store = 'google' AND d.transaction_id = p.transaction_id;

-- Migration 13: webhooks. A durable outbox of the events the game server is told about over HTTPS, signed as
-- Standard Webhooks specifies. Triggers (sql/routines/09_webhooks.sql) write each event in the transaction that
-- makes the change it reports; the daemons deliver it at least once, in order per order, with backoff.

-- One row per event. `id` is the webhook-id the receiver deduplicates on; `seq` is the order events were written
-- in (an order's later event waits while an earlier one is pending). `payload` is the body's `data`.
CREATE TABLE iap.webhook_events (
    id              text PRIMARY KEY CHECK (id LIKE 'msg\_%'),
    seq             bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
    type            text NOT NULL CHECK (type IN ('order.verified', 'delivery.revoked', 'delivery.reinstated',
                                                  'payment.unclaimed', 'order.failed')),
    order_id        text,
    user_id         text,
    payload         jsonb NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    attempts        int NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    next_attempt_at timestamptz NOT NULL DEFAULT now(),
    delivered_at    timestamptz,
    last_status     int,
    last_error      text,
    state           text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'failed')),
    -- The daemon sending it now, until when: a daemon killed mid-call leaves the event to the next one.
    locked_by       text,
    locked_until    timestamptz,
    CHECK ((state = 'delivered') = (delivered_at IS NOT NULL))
);
CREATE INDEX webhook_events_due ON iap.webhook_events (next_attempt_at, seq) WHERE state = 'pending';
CREATE INDEX webhook_events_order_pending ON iap.webhook_events (order_id, seq) WHERE state = 'pending';
CREATE INDEX webhook_events_delivered ON iap.webhook_events (delivered_at) WHERE state = 'delivered';
CREATE INDEX webhook_events_created ON iap.webhook_events (created_at);

-- The endpoint, one row. `configured`: the daemons run with RECEIPTD_WEBHOOK_URL, so changes write events
-- (written by each daemon at start). `disabled_at`: the endpoint answered 410 Gone; nothing is sent until an
-- operator runs `receiptd webhooks enable`, and every event waits.
CREATE TABLE iap.webhook_endpoint (
    singleton      boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    configured     boolean NOT NULL DEFAULT false,
    disabled_at    timestamptz,
    disabled_event text,
    enabled_at     timestamptz,
    enabled_by     text,
    updated_at     timestamptz NOT NULL DEFAULT now()
);
INSERT INTO iap.webhook_endpoint DEFAULT VALUES;

-- wh-sql (iap.stuck_jobs, `receiptd webhooks --state`): the events not delivered, by age, without reading the
-- delivered ones (most of the table until retention deletes them).
CREATE INDEX webhook_events_undelivered ON iap.webhook_events (created_at) WHERE state <> 'delivered';

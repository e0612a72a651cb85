-- Migration 14: the operators' audit trail. Every operator action (retry, cancel, assign, trust, webhook
-- replay and enable), from the CLI or the console, writes one row: who (`actor`, the console's signed-in
-- name or the CLI's OS user, read from the transaction's `receiptd.actor`), the database login it came
-- through (`session_user`), when, on what, and the result, refusals included. Rows are never purged.
CREATE TABLE iap.operator_actions (
    id             bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at             timestamptz NOT NULL DEFAULT now(),
    actor          text        NOT NULL,
    action         text        NOT NULL,
    target         text        NOT NULL,
    result         text        NOT NULL,
    "session_user" text        NOT NULL DEFAULT session_user,
    -- The order the action touched, when it touched one: the order page's timeline reads it.
    order_id       text
);

CREATE INDEX operator_actions_order ON iap.operator_actions (order_id, at) WHERE order_id IS NOT NULL;
CREATE INDEX operator_actions_at ON iap.operator_actions (at);

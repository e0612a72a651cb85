-- Per-API health: each daemon publishes the store APIs (verify_receipt, server_api, google_play) whose jobs
-- its claims skip while that API is failing, for `receiptd status`. Empty while every API answers.
ALTER TABLE iap.daemons ADD COLUMN paused_apis text[] NOT NULL DEFAULT '{}';

-- Migration 30: the App Store Server API is paced per endpoint. Apple limits each endpoint's requests on its own
-- ("Identifying rate limits"), so one 429 on one endpoint (a subscription's statuses, say) no longer stops the
-- transaction lookups and the consumption answers: each endpoint has its own row, its own slots and its own
-- Retry-After block, and the single 'apple_server_api' row is retired.
--
-- A block or a slot the retired row still holds was sent by an endpoint no one recorded; every endpoint inherits it,
-- so no request goes before a Retry-After Apple sent. Receiptd caps a block at an hour: the upgrade holds the other
-- endpoints back for what is left of it at most, as the build before it did.
INSERT INTO iap.api_pacing (api, next_slot, blocked_until)
SELECT e.api, coalesce(old.next_slot, '-infinity'), coalesce(old.blocked_until, '-infinity')
FROM (VALUES ('apple_transaction_info'), ('apple_transaction_history'), ('apple_subscription_statuses'),
             ('apple_consumption'), ('apple_app_account_token'), ('apple_notification_history')) AS e (api)
LEFT JOIN iap.api_pacing old ON old.api = 'apple_server_api'
ON CONFLICT (api) DO NOTHING;
DELETE FROM iap.api_pacing WHERE api = 'apple_server_api';

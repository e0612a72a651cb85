-- Migration 17: RESCIND_CONSENT (App Store Server Notifications 2.19) reaches the game as a webhook too. The event
-- is about an app transaction, not an order: its order_id and user_id stay null.
ALTER TABLE iap.webhook_events DROP CONSTRAINT webhook_events_type_check;
ALTER TABLE iap.webhook_events ADD CONSTRAINT webhook_events_type_check
    CHECK (type IN ('order.verified', 'delivery.revoked', 'delivery.reinstated', 'payment.unclaimed', 'order.failed',
                    'consent.rescinded'));

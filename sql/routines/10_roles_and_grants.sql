-- The three roles and everything each may do. Runs last: the roles must exist before their grants, and the
-- grants name the functions and views the files before this one made.

-- Roles are cluster-wide, and migrations of other databases in the same cluster may create them
-- at the same moment (the advisory lock is per database): a concurrent creation is fine. A
-- migrating user without CREATEROLE gets a warning, and the grants below skip missing roles.
DO $$
DECLARE
    v_role text;
BEGIN
    FOREACH v_role IN ARRAY ARRAY['receiptd_worker', 'receiptd_app', 'receiptd_operator'] LOOP
        CONTINUE WHEN EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = v_role);
        BEGIN
            EXECUTE format('CREATE ROLE %I NOLOGIN', v_role);
        EXCEPTION
            WHEN duplicate_object OR unique_violation THEN NULL;
            WHEN insufficient_privilege THEN
                RAISE WARNING 'receiptd: cannot create role % (needs CREATEROLE); its grants are skipped', v_role;
        END;
    END LOOP;
END $$;

-- No function is for PUBLIC: PostgreSQL lets every role execute a new function, and the ones that run as
-- their owner would hand any role the tables. Each role gets its own below; enqueue_job, check_identifier,
-- enqueue_notified and cancel_provisional_grant are for the functions that run as their owner only.
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA iap FROM PUBLIC;

-- Grants are revoked and given again on every migrate, so this block is the whole truth about
-- what each role may do.
DO $$
BEGIN
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'receiptd_worker') THEN
        REVOKE ALL ON SCHEMA iap FROM receiptd_worker;
        REVOKE ALL ON ALL TABLES IN SCHEMA iap FROM receiptd_worker;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA iap FROM receiptd_worker;
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA iap FROM receiptd_worker;
        -- Exactly the daemon's statements: claim, heartbeat, record, deliver, log attempts.
        GRANT USAGE ON SCHEMA iap TO receiptd_worker;
        GRANT SELECT, UPDATE ON iap.jobs, iap.orders TO receiptd_worker;
        GRANT SELECT, INSERT ON iap.deliveries, iap.attempts, iap.transaction_owners, iap.foreign_transactions
            TO receiptd_worker;
        GRANT SELECT, INSERT, UPDATE ON iap.unclaimed_payments TO receiptd_worker;
        GRANT SELECT, INSERT, UPDATE, DELETE ON iap.daemons TO receiptd_worker;
        GRANT SELECT, UPDATE ON iap.api_pacing TO receiptd_worker;
        GRANT SELECT, INSERT, UPDATE ON iap.google_finalizations, iap.google_voided_cursor TO receiptd_worker;
        -- The catalogue: read at every settle, written when the App Store names a product's type.
        GRANT SELECT, INSERT, UPDATE ON iap.products TO receiptd_worker;
        -- Subscriptions: kept current from the stores' news; the trigger of 07_notifications.sql keeps their history.
        GRANT SELECT, INSERT, UPDATE ON iap.subscriptions TO receiptd_worker;
        GRANT SELECT, INSERT ON iap.subscription_history TO receiptd_worker;
        -- A subscription restored on another account moves to it with its first owner (RECEIPTD_SUBSCRIPTION_RESTORE).
        GRANT UPDATE (user_id) ON iap.transaction_owners TO receiptd_worker;
        GRANT SELECT, UPDATE ON iap.app_account_token_calls TO receiptd_worker;
        -- Google's voided purchases are recorded on the ledger row; nothing else of it ever changes.
        GRANT UPDATE (revoked_at, revocation_reason) ON iap.deliveries TO receiptd_worker;
        -- Store notifications: the intake records them, the daemons process them, answer consumption requests
        -- and keep the history cursor; a revocation or its reversal changes only these columns of the ledger.
        GRANT SELECT, INSERT, UPDATE ON iap.store_notifications, iap.refund_requests,
            iap.notification_history_cursor TO receiptd_worker;
        -- Refund requests: the daemons read what the game reported, and count a player's refunds.
        GRANT SELECT ON iap.consumption_reports, iap.consumption_requests TO receiptd_worker;
        GRANT EXECUTE ON FUNCTION iap.refunds_in_90_days(text), iap.set_refund_abuse_limit(int) TO receiptd_worker;
        GRANT SELECT, INSERT, UPDATE, DELETE ON iap.revoked_transactions TO receiptd_worker;
        GRANT SELECT ON iap.consumption_consent TO receiptd_worker;
        GRANT UPDATE (revocation_percentage, revocation_handled_at, granted_at) ON iap.deliveries TO receiptd_worker;
        -- A reversal lifts a refunded share: the share the game handled, and the units it took back owed again.
        GRANT UPDATE (revocation_handled_percentage, reinstated_quantity) ON iap.deliveries TO receiptd_worker;
        -- The store's time of the last news applied to a ledger row (older news changes nothing).
        GRANT UPDATE (store_time) ON iap.deliveries TO receiptd_worker;
        -- Google's partial refunds revoke units of a ledger row, each refund recorded once.
        GRANT UPDATE (revoked_quantity, revocation_handled_quantity) ON iap.deliveries TO receiptd_worker;
        GRANT SELECT, INSERT ON iap.google_partial_refunds TO receiptd_worker;
        GRANT SELECT ON iap.schema_migrations TO receiptd_worker;   -- the daemon checks the version at start
        GRANT EXECUTE ON FUNCTION iap.purge_finished(interval, int) TO receiptd_worker;
        -- A ONE_TIME_CHARGE an order matches is enqueued as a client's input would be.
        GRANT EXECUTE ON FUNCTION iap.enqueue_notified_charge(text, text) TO receiptd_worker;
        -- A subscription's later period is its own order, enqueued the same way; every write of a subscription
        -- says when it is next read again.
        GRANT EXECUTE ON FUNCTION iap.enqueue_subscription_period(text, text, text, text),
            iap.open_renewal_orders(jsonb), iap.subscription_read_due(text, timestamptz) TO receiptd_worker;
        -- A ONE_TIME_PRODUCT_PURCHASED an order matches is enqueued as a client's token would be.
        GRANT EXECUTE ON FUNCTION iap.enqueue_notified_google_purchase(text, text) TO receiptd_worker;
        GRANT EXECUTE ON FUNCTION iap.revoke_refunded_units(text[]) TO receiptd_worker;
        -- A RESCIND_CONSENT is handed to the game (NOTIFY and webhook); no purchase changes.
        GRANT EXECUTE ON FUNCTION iap.rescind_consent(text, text, timestamptz, bigint) TO receiptd_worker;
        -- Trust levels: the triggers of 08_trust.sql run as the daemon, and write these; the daemon grants
        -- provisionally, reports replays, and writes its trust settings.
        GRANT SELECT, INSERT, UPDATE ON iap.user_trust, iap.provisional_grants TO receiptd_worker;
        GRANT SELECT ON iap.trust_policy TO receiptd_worker;
        GRANT EXECUTE ON FUNCTION iap.grant_provisional(interval, int, text, text[]), iap.lose_trust(text, text, text, text),
            iap.set_trust_policy(boolean, boolean, int) TO receiptd_worker;
        -- The two rules those triggers read, which the planner inlines only for a role that may execute them.
        GRANT EXECUTE ON FUNCTION iap.job_store(text), iap.trust_level(boolean, text, boolean, boolean) TO receiptd_worker;
        GRANT EXECUTE ON FUNCTION iap.prorated_units(int, int), iap.units_share(int, int) TO receiptd_worker;
        -- Webhooks: the triggers of 09_webhooks.sql run as the daemon, lock the order (UPDATE on iap.orders, above)
        -- and write events; the daemon sends them, records each attempt, and writes whether it runs with an endpoint
        -- and when the endpoint is gone.
        GRANT SELECT, INSERT, UPDATE ON iap.webhook_events TO receiptd_worker;
        GRANT SELECT ON iap.webhook_endpoint TO receiptd_worker;
        GRANT EXECUTE ON FUNCTION iap.set_webhook_endpoint(boolean), iap.disable_webhooks(text) TO receiptd_worker;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'receiptd_app') THEN
        REVOKE ALL ON SCHEMA iap FROM receiptd_app;
        REVOKE ALL ON ALL TABLES IN SCHEMA iap FROM receiptd_app;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA iap FROM receiptd_app;
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA iap FROM receiptd_app;
        GRANT USAGE ON SCHEMA iap TO receiptd_app;
        GRANT EXECUTE ON FUNCTION iap.enqueue_receipt(text, text, text, text, int),
            iap.enqueue_transaction(text, text, text, text, int, uuid), iap.enqueue_google_purchase(text, text, text, text, int, text),
            iap.create_order(text, text, text, int, uuid, text),
            iap.owed_deliveries(text), iap.mark_granted(text), iap.mark_granted(text, text[]), iap.close_order(text),
            iap.owed_revocations(text), iap.mark_revocation_handled(text[]), iap.set_consumption_consent(text, boolean),
            iap.define_product(text, text, text, boolean), iap.answer_refund_request(text, int, text),
            iap.entitlements(text),
            iap.report_consumption(text, int)
            TO receiptd_app;
    END IF;
    IF EXISTS (SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = 'receiptd_operator') THEN
        REVOKE ALL ON SCHEMA iap FROM receiptd_operator;
        REVOKE ALL ON ALL TABLES IN SCHEMA iap FROM receiptd_operator;
        REVOKE ALL ON ALL SEQUENCES IN SCHEMA iap FROM receiptd_operator;
        REVOKE ALL ON ALL FUNCTIONS IN SCHEMA iap FROM receiptd_operator;
        GRANT USAGE ON SCHEMA iap TO receiptd_operator;
        GRANT SELECT ON iap.queue_summary, iap.recent_retries, iap.stuck_jobs, iap.recent_failures, iap.suspicious_receipts
            TO receiptd_operator;
        GRANT SELECT ON iap.orders, iap.jobs, iap.attempts, iap.deliveries, iap.daemons, iap.transaction_owners,
            iap.foreign_transactions, iap.schema_migrations, iap.unclaimed_payments, iap.api_pacing, iap.google_finalizations,
            iap.google_voided_cursor, iap.store_notifications, iap.revoked_transactions, iap.consumption_consent,
            iap.consumption_requests, iap.refund_requests, iap.consumption_reports, iap.notification_history_cursor,
            iap.google_partial_refunds, iap.user_trust,
            iap.trust_policy, iap.provisional_grants, iap.webhook_events, iap.webhook_endpoint, iap.operator_actions,
            iap.products, iap.app_account_token_calls, iap.subscriptions, iap.subscription_history
            TO receiptd_operator;
        GRANT EXECUTE ON FUNCTION iap.retry_order(text), iap.cancel_order(text), iap.assign_payment(text, text),
            iap.trust_of(text), iap.set_trust(text, text, boolean, text), iap.enable_webhooks(text),
            iap.replay_webhook_events(text[]), iap.record_operator_action(text, text, text, text),
            iap.operator_answer_refund(text, int, text) TO receiptd_operator;
    END IF;
END $$;

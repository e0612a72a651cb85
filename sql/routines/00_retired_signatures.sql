-- receiptd's routines: the functions, views, roles and grants, in the files of this folder. They hold no
-- data, so `receiptd migrate` applies every file, in name order and in one transaction, after the numbered
-- migrations in ../migrations/, on every run. Each file may change freely; the migrations may not.
--
-- How these files are written:
-- - A function is created with CREATE OR REPLACE, and states SECURITY DEFINER and its search_path in its own
--   definition (CREATE OR REPLACE resets every attribute the definition leaves out).
-- - A function body reads its parameters qualified by the function's name (`create_order.order_id`), never
--   as `$1`: the contract's names (order_id, user_id, …) are also column names, and a bare name is the column.
-- - CREATE OR REPLACE with other argument types adds an overload beside the old function, and calls that fit
--   both then fail as "not unique"; with another result type it fails. A function whose arguments or result
--   change gets its old signature dropped HERE, in this file, which runs first, so that a database migrated
--   by an older receiptd loses it. A drop stays as long as such databases may exist.
-- - CREATE OR REPLACE VIEW can only append columns: a change to an existing column needs a DROP VIEW first.
-- - Nothing here grants EXECUTE: 10_roles_and_grants.sql revokes every function from PUBLIC and grants each
--   to its roles.

-- Old signatures, dropped before the files after this one create the current ones.

-- enqueue_job before Google Play (migration 6) added p_account_id: without this drop, enqueue_receipt's and
-- enqueue_transaction's calls would match both.
DROP FUNCTION IF EXISTS iap.enqueue_job(text, text, text, text, text, text, int, uuid);

-- create_order before the notifications (migration 10) added app_account_token and account_id: dropped and
-- created once with both, so that no overload makes a call with three or four arguments ambiguous.
DROP FUNCTION IF EXISTS iap.create_order(text, text, text, int);
-- owed_revocations before Google's partial refunds (migration 11) added revoked_quantity: a result type cannot
-- change in place. Dropped only while it still has the old columns, so that a migrate leaves the current one.
DO $$
BEGIN
    IF to_regprocedure('iap.owed_revocations(text)') IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pg_catalog.pg_proc
        WHERE oid = to_regprocedure('iap.owed_revocations(text)') AND 'revoked_quantity' = ANY (proargnames)
    ) THEN
        DROP FUNCTION iap.owed_revocations(text);
    END IF;
END $$;
-- owed_deliveries before the trust levels (migration 12) added provisional: dropped the same way.
DO $$
BEGIN
    IF to_regprocedure('iap.owed_deliveries(text)') IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pg_catalog.pg_proc
        WHERE oid = to_regprocedure('iap.owed_deliveries(text)') AND 'provisional' = ANY (proargnames)
    ) THEN
        DROP FUNCTION iap.owed_deliveries(text);
    END IF;
END $$;

-- owed_deliveries before subscriptions (migration 22) added subscription_id, period_start and period_end:
-- dropped the same way.
DO $$
BEGIN
    IF to_regprocedure('iap.owed_deliveries(text)') IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pg_catalog.pg_proc
        WHERE oid = to_regprocedure('iap.owed_deliveries(text)') AND 'subscription_id' = ANY (proargnames)
    ) THEN
        DROP FUNCTION iap.owed_deliveries(text);
    END IF;
END $$;
-- owed_deliveries before reversed shares (migration 27) added reinstated_quantity: dropped the same way.
DO $$
BEGIN
    IF to_regprocedure('iap.owed_deliveries(text)') IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM pg_catalog.pg_proc
        WHERE oid = to_regprocedure('iap.owed_deliveries(text)') AND 'reinstated_quantity' = ANY (proargnames)
    ) THEN
        DROP FUNCTION iap.owed_deliveries(text);
    END IF;
END $$;
-- define_product before subscriptions (migration 22) added periods.
DROP FUNCTION IF EXISTS iap.define_product(text, text, text);

-- Retention: deleting old finished jobs and delivered webhook events, which the daemon (RECEIPTD_RETENTION) or a
-- cron job calls.

-- Deletes up to p_batch rows in all: finished jobs that finished more than p_older_than ago, with their attempts,
-- then webhook events delivered more than p_older_than ago. Returns how many jobs and events went (call it until
-- it returns less than p_batch, or 0). Orders and deliveries are never deleted, and neither is a job the ledger
-- names, nor a webhook event still `pending` or `failed`. A job another job's superseded_by names waits until
-- that job is gone: each round deletes only unreferenced jobs, so a supersede chain goes one link per round.
CREATE OR REPLACE FUNCTION iap.purge_finished(p_older_than interval, p_batch int) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_total int := 0;
    v_round int;
BEGIN
    IF purge_finished.p_older_than IS NULL OR purge_finished.p_older_than < interval '0' THEN
        RAISE EXCEPTION 'purge_finished: the age must be a non-negative interval' USING ERRCODE = '22023';
    END IF;
    IF purge_finished.p_batch IS NULL OR purge_finished.p_batch < 1 THEN
        RAISE EXCEPTION 'purge_finished: the batch must be at least 1' USING ERRCODE = '22023';
    END IF;
    LOOP
        WITH doomed AS (
            SELECT j.id FROM iap.jobs j
            WHERE j.state IN ('succeeded', 'failed', 'superseded', 'cancelled')
              AND j.finished_at < now() - purge_finished.p_older_than
              AND NOT EXISTS (SELECT 1 FROM iap.deliveries d WHERE d.job_id = j.id)
              AND NOT EXISTS (SELECT 1 FROM iap.jobs r WHERE r.superseded_by = j.id)
            ORDER BY j.finished_at, j.id
            LIMIT purge_finished.p_batch - v_total
            FOR UPDATE SKIP LOCKED
        )
        , gone AS (
            DELETE FROM iap.jobs j USING doomed WHERE j.id = doomed.id RETURNING j.id
        ), attempts AS (
            DELETE FROM iap.attempts a WHERE a.job_id = ANY (ARRAY(SELECT id FROM gone))
        )
        SELECT count(*) INTO v_round FROM gone;
        v_total := v_total + v_round;
        EXIT WHEN v_round = 0 OR v_total >= purge_finished.p_batch;
    END LOOP;
    IF v_total < purge_finished.p_batch THEN
        -- Oldest delivery first, through the partial index of delivered events; one a daemon holds is left to
        -- the next round.
        WITH doomed AS (
            SELECT w.id FROM iap.webhook_events w
            WHERE w.state = 'delivered' AND w.delivered_at < now() - purge_finished.p_older_than
            ORDER BY w.delivered_at
            LIMIT purge_finished.p_batch - v_total
            FOR UPDATE SKIP LOCKED
        ), gone AS (
            DELETE FROM iap.webhook_events w USING doomed WHERE w.id = doomed.id RETURNING 1
        )
        SELECT count(*) INTO v_round FROM gone;
        v_total := v_total + v_round;
    END IF;
    RETURN v_total;
END $$;

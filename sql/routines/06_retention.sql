-- Retention: deleting old finished jobs and delivered webhook events, which the daemon (RECEIPTD_RETENTION) or a
-- cron job calls.

-- Deletes up to p_batch rows in all: finished jobs that finished more than p_older_than ago, with their attempts,
-- then webhook events delivered more than p_older_than ago. Returns how many jobs and events went (call it until
-- it returns less than p_batch, or 0). Orders and deliveries are never deleted, and neither is a job the ledger
-- names, nor a webhook event still `pending` or `failed`. A job another job's superseded_by names waits until
-- that job is gone: each round deletes only unreferenced jobs, so a supersede chain goes one link per round.
-- A job that can never go (the ledger names it, or a kept job's superseded_by does) is marked kept when a call
-- first reaches it, at most 10 * p_batch per call, and no later call visits it again: the walk follows
-- jobs_purgeable, which leaves kept jobs out, so an idle purge reads nothing however large the ledger grows.
CREATE OR REPLACE FUNCTION iap.purge_finished(p_older_than interval, p_batch int) RETURNS int
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, iap, pg_temp AS $$
DECLARE
    v_total      int := 0;
    v_kept       int := 0;
    v_round      int;
    v_round_kept int;
    v_kept_most  bigint;
BEGIN
    IF purge_finished.p_older_than IS NULL OR purge_finished.p_older_than < interval '0' THEN
        RAISE EXCEPTION 'purge_finished: the age must be a non-negative interval' USING ERRCODE = '22023';
    END IF;
    IF purge_finished.p_batch IS NULL OR purge_finished.p_batch < 1 THEN
        RAISE EXCEPTION 'purge_finished: the batch must be at least 1' USING ERRCODE = '22023';
    END IF;
    v_kept_most := 10::bigint * purge_finished.p_batch;
    LOOP
        -- Oldest first, through jobs_purgeable. A job that another job names through superseded_by is passed over
        -- while that job is neither deleted nor kept. Each reference is looked up per job (LATERAL … LIMIT 1), and
        -- each row written by its key: the planner would otherwise hash the whole ledger for a large batch.
        WITH visited AS (
            SELECT j.id, named.job_id IS NOT NULL OR referenced.id IS NOT NULL AS keep
            FROM (
                SELECT j.id FROM iap.jobs j
                WHERE j.state IN ('succeeded', 'failed', 'superseded', 'cancelled') AND NOT j.kept
                  AND j.finished_at < now() - purge_finished.p_older_than
                  AND NOT EXISTS (SELECT 1 FROM iap.jobs r WHERE r.superseded_by = j.id AND NOT r.kept)
                ORDER BY j.finished_at, j.id
                LIMIT least(purge_finished.p_batch - v_total, v_kept_most - v_kept)
                FOR UPDATE OF j SKIP LOCKED
            ) j
            LEFT JOIN LATERAL (SELECT d.job_id FROM iap.deliveries d WHERE d.job_id = j.id LIMIT 1) named ON true
            LEFT JOIN LATERAL (SELECT r.id FROM iap.jobs r WHERE r.superseded_by = j.id LIMIT 1) referenced ON true
        ), kept AS (
            UPDATE iap.jobs j SET kept = true WHERE j.id = ANY (ARRAY(SELECT id FROM visited WHERE keep)) RETURNING 1
        ), gone AS (
            DELETE FROM iap.jobs j WHERE j.id = ANY (ARRAY(SELECT id FROM visited WHERE NOT keep)) RETURNING j.id
        ), attempts AS (
            DELETE FROM iap.attempts a WHERE a.job_id = ANY (ARRAY(SELECT id FROM gone))
        )
        SELECT (SELECT count(*) FROM gone), (SELECT count(*) FROM kept) INTO v_round, v_round_kept;
        v_total := v_total + v_round;
        v_kept := v_kept + v_round_kept;
        EXIT WHEN v_round + v_round_kept = 0 OR v_total >= purge_finished.p_batch OR v_kept >= v_kept_most;
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

-- Migration 3: a leaner write path. Each foreign key below made every delivered order run a referential
-- check that also locked the referenced row (FOR KEY SHARE), on the hottest statements. The rows they guard
-- are only ever written by receiptd's own statements, in the same transaction as what they point at: the
-- ledger row with its job and order, the attempt with its job. purge_finished now deletes a job's attempts
-- itself instead of by ON DELETE CASCADE. jobs.order_id keeps its key: the game server's enqueue writes it.
ALTER TABLE iap.deliveries DROP CONSTRAINT deliveries_order_id_fkey;
ALTER TABLE iap.deliveries DROP CONSTRAINT deliveries_job_id_fkey;
ALTER TABLE iap.attempts DROP CONSTRAINT attempts_job_id_fkey;

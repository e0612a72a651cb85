-- Migration 19: a leaner enqueue (issue #33). The game's enqueue inserts an order and its job in one call, and a
-- profile of it showed two per-row costs that guard nothing the functions do not already guarantee:
-- jobs.order_id's foreign key ran a referential check (a query, and a FOR KEY SHARE lock on the order) for every
-- job, though every writer of a job (iap.enqueue_job, iap.retry_order) inserts or locks its order first in the
-- same transaction, and no statement deletes an order; and PostgreSQL reads each CHECK constraint's stored
-- expression anew for every statement that inserts a row, so a job's two checks, each an ARRAY of constants, cost
-- more than the row. The checks stay, with the same names and the same rule, written as one array constant each.
ALTER TABLE iap.jobs DROP CONSTRAINT jobs_order_id_fkey;

ALTER TABLE iap.jobs DROP CONSTRAINT jobs_state_check;
ALTER TABLE iap.jobs ADD CONSTRAINT jobs_state_check
    CHECK (state = ANY ('{pending,running,succeeded,failed,superseded,cancelled}'::text[]));
ALTER TABLE iap.jobs DROP CONSTRAINT jobs_kind_check;
ALTER TABLE iap.jobs ADD CONSTRAINT jobs_kind_check
    CHECK (kind = ANY ('{receipt,transaction,google_purchase}'::text[]));

-- Migration agent_version_totals added generated columns to reports, which rewrote the table:
-- a rewritten table has no page marked all-visible, and as nothing was inserted or deleted,
-- autovacuum has no reason to come and mark them. Until it did, every index-only walk of the
-- reports (the report list's pages and totals, the agents' version probes, an agent's recent
-- reports) read the table page of each entry: the report list's page 5,000 took 190 ms instead
-- of 20-30 at 2,000,000 reports. This marks them now. A single statement, so the migration runner
-- sends it outside any transaction block (src/db/migrations.ts), as VACUUM requires.
VACUUM (ANALYZE) "reports";

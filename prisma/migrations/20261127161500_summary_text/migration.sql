-- The summary without its trend, as text, for the lists and the export to read as it is:
-- printing a jsonb document (and removing a key from it) on every read cost the server more
-- than the rest of the query. Generated, so every writer of `summary` keeps it current.
ALTER TABLE "merchant_agent_summaries"
  ADD COLUMN "summary_text" TEXT NOT NULL GENERATED ALWAYS AS (("summary" - 'trend')::text) STORED;

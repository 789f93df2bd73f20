-- Summaries stored before the verdict existed (summary -> 'verdict') are recomputed by the
-- upkeep's refresh right after start (it recomputes rows computed more than a day ago); until
-- then each is read with a verdict made from its task statuses and counts alone.
UPDATE "merchant_agent_summaries" SET "computed_at" = '1970-01-01T00:00:00Z';

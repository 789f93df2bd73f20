-- The report list's deep pages walked up to 240,000 index entries (114-145 ms at 2,000,000
-- reports), because a numbered page says how many matches to skip and nothing says where they
-- end. Its totals (report_totals, per agent and overall outcome) are now kept per week of the
-- reports' date too, so a page starts its walk at the week it falls in and skips at most a
-- week's matches. Each summary carries its pair's counts per week (feed_weeks, written by the
-- summary writer beside the document), and the triggers add and subtract those instead of the
-- document's counts: the same sums, one dimension finer.

-- AlterTable
ALTER TABLE "merchant_agent_summaries" ADD COLUMN     "feed_weeks" JSONB NOT NULL DEFAULT '{}';

-- AlterTable (refilled below, by week)
TRUNCATE "report_totals";
ALTER TABLE "report_totals" DROP CONSTRAINT "report_totals_pkey",
ADD COLUMN     "week" INTEGER NOT NULL,
ADD CONSTRAINT "report_totals_pkey" PRIMARY KEY ("agent_id", "outcome", "week");

-- A summary's counts per week and outcome, signed: { "<week>": { "<Outcome>": [independent, self-reported] } }.
DROP TRIGGER "report_totals_inserted" ON "merchant_agent_summaries";
DROP TRIGGER "report_totals_deleted" ON "merchant_agent_summaries";
DROP TRIGGER "report_totals_updated" ON "merchant_agent_summaries";
DROP TRIGGER "report_totals_truncated" ON "merchant_agent_summaries";
DROP FUNCTION "report_totals_apply"();
DROP FUNCTION "report_totals_counts"(JSONB, INTEGER);

CREATE FUNCTION "report_totals_counts"("feed_weeks" JSONB, "sign" INTEGER)
RETURNS TABLE ("week" INTEGER, "outcome" "Outcome", "reports" INTEGER, "self_reported" INTEGER) LANGUAGE sql IMMUTABLE AS $$
  SELECT w.key::int, o.key::"Outcome", sign * (o.value->>0)::int, sign * (o.value->>1)::int
    FROM jsonb_each(feed_weeks) w, jsonb_each(w.value) o
$$;

CREATE FUNCTION "report_totals_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "report_totals";
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "week", "reports", "self_reported")
    SELECT n."agent_id", c."outcome", c."week", sum(c."reports"), sum(c."self_reported")
      FROM "new_rows" n, "report_totals_counts"(n."feed_weeks", 1) c GROUP BY 1, 2, 3
    ON CONFLICT ("agent_id", "outcome", "week") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "week", "reports", "self_reported")
    SELECT o."agent_id", c."outcome", c."week", sum(c."reports"), sum(c."self_reported")
      FROM "old_rows" o, "report_totals_counts"(o."feed_weeks", -1) c GROUP BY 1, 2, 3
    ON CONFLICT ("agent_id", "outcome", "week") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
  ELSE
    -- A row's weeks updated in place (the writer never does; a hand-made fix might).
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "week", "reports", "self_reported")
    SELECT x."agent_id", x."outcome", x."week", sum(x."reports"), sum(x."self_reported")
      FROM (SELECT OLD."agent_id", c.* FROM "report_totals_counts"(OLD."feed_weeks", -1) c
            UNION ALL
            SELECT NEW."agent_id", c.* FROM "report_totals_counts"(NEW."feed_weeks", 1) c) x
     GROUP BY 1, 2, 3
    ON CONFLICT ("agent_id", "outcome", "week") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
  END IF;
  RETURN NULL;
END $$;

-- The weeks of the summaries already written, from their reports as the summary writer reads
-- them (summaries.repository.ts loadEvidence: approved, public merchant, active agent; owner's or
-- vendor's by public-evidence.ts SELF_REPORTED_BY as it stands at this migration). The column is
-- not public, so this update announces no change (the announcing trigger is off meanwhile).
ALTER TABLE "merchant_agent_summaries" DISABLE TRIGGER "merchant_agent_summaries_announce_update";
UPDATE "merchant_agent_summaries" s SET "feed_weeks" = w."weeks"
  FROM (SELECT x."merchant_id", x."agent_id", jsonb_object_agg(x."week"::text, x."outcomes") AS "weeks"
          FROM (SELECT c."merchant_id", c."agent_id", c."week",
                       jsonb_object_agg(c."outcome"::text, jsonb_build_array(c."independent", c."self")) AS "outcomes"
                  FROM (SELECT r."merchant_id", r."agent_id", floor(extract(epoch FROM r."created_at") / 604800)::int AS "week", r."outcome",
                               count(*) FILTER (WHERE NOT r."self")::int AS "independent", count(*) FILTER (WHERE r."self")::int AS "self"
                          FROM (SELECT r.*, (EXISTS (SELECT 1 FROM "claims" sc WHERE sc."account_id" = r."account_id"
                                                        AND (sc."merchant_id" = r."merchant_id" OR sc."agent_id" = r."agent_id")
                                                        AND sc."status" IN ('VERIFIED', 'GRACE', 'LAPSED') AND sc."verified_at" IS NOT NULL)) AS "self"
                                  FROM "reports" r
                                  JOIN "merchants" m ON m."id" = r."merchant_id" AND m."is_public"
                                  JOIN "agents" a ON a."id" = r."agent_id" AND a."active"
                                 WHERE r."status" = 'APPROVED') r
                         GROUP BY 1, 2, 3, 4) c
                 GROUP BY 1, 2, 3) x
         GROUP BY 1, 2) w
 WHERE s."merchant_id" = w."merchant_id" AND s."agent_id" = w."agent_id";
ALTER TABLE "merchant_agent_summaries" ENABLE TRIGGER "merchant_agent_summaries_announce_update";

INSERT INTO "report_totals" ("agent_id", "outcome", "week", "reports", "self_reported")
SELECT s."agent_id", c."outcome", c."week", sum(c."reports"), sum(c."self_reported")
  FROM "merchant_agent_summaries" s, "report_totals_counts"(s."feed_weeks", 1) c GROUP BY 1, 2, 3;

CREATE TRIGGER "report_totals_inserted" AFTER INSERT ON "merchant_agent_summaries"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "report_totals_apply"();
CREATE TRIGGER "report_totals_deleted" AFTER DELETE ON "merchant_agent_summaries"
  REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "report_totals_apply"();
CREATE TRIGGER "report_totals_updated" AFTER UPDATE OF "feed_weeks", "agent_id" ON "merchant_agent_summaries"
  FOR EACH ROW EXECUTE FUNCTION "report_totals_apply"();
CREATE TRIGGER "report_totals_truncated" AFTER TRUNCATE ON "merchant_agent_summaries"
  FOR EACH STATEMENT EXECUTE FUNCTION "report_totals_apply"();

-- The agents' version lists (GET /api/v1/agents, an agent's page) grouped every public report by
-- agent and version to count each version's reports and find when it was last observed: 1.9 s at
-- 2,000,000 reports, again after every change. Now the counts are kept like the report list's
-- totals (each summary stores its pair's listed reports per version, version_counts, and the
-- triggers on the summaries sum them into agent_version_totals), and when a version was last
-- observed is the first entry of an index on (agent, version, approved, observed time), generated
-- columns of the report: a few hundred index probes.

-- AlterTable
ALTER TABLE "merchant_agent_summaries" ADD COLUMN     "version_counts" JSONB NOT NULL DEFAULT '{}';

-- AlterTable: the version as the directory compares it (issue 37: trimmed, none when blank), and
-- when the report observed the agent (its test date at 00:00 UTC, else its report date), as the
-- version lists have always read them.
ALTER TABLE "reports"
  ADD COLUMN "version_key" TEXT GENERATED ALWAYS AS (nullif(btrim("agent_version"), '')) STORED,
  ADD COLUMN "observed_at" TIMESTAMPTZ(3) NOT NULL GENERATED ALWAYS AS (coalesce("tested_at"::timestamp AT TIME ZONE 'UTC', "created_at")) STORED;

-- CreateTable
CREATE TABLE "agent_version_totals" (
    "agent_id" UUID NOT NULL,
    "version" TEXT NOT NULL,
    "reports" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "agent_version_totals_pkey" PRIMARY KEY ("agent_id","version")
);

-- CreateIndex
CREATE INDEX "reports_version_seen_idx" ON "reports"("agent_id", "version_key", "status", "observed_at" DESC, "merchant_id");

-- A summary's counts per version, signed.
CREATE FUNCTION "agent_version_counts"("version_counts" JSONB, "sign" INTEGER)
RETURNS TABLE ("version" TEXT, "reports" INTEGER) LANGUAGE sql IMMUTABLE AS $$
  SELECT v.key, sign * (v.value #>> '{}')::int FROM jsonb_each(version_counts) v
$$;

-- One trigger function keeps both sums of the summaries (report_totals from feed_weeks,
-- agent_version_totals from version_counts), in the statement that writes them.
DROP TRIGGER "report_totals_inserted" ON "merchant_agent_summaries";
DROP TRIGGER "report_totals_deleted" ON "merchant_agent_summaries";
DROP TRIGGER "report_totals_updated" ON "merchant_agent_summaries";
DROP TRIGGER "report_totals_truncated" ON "merchant_agent_summaries";
DROP FUNCTION "report_totals_apply"();

CREATE FUNCTION "summary_totals_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "report_totals";
    DELETE FROM "agent_version_totals";
  ELSIF TG_OP = 'INSERT' THEN
    -- Inserted rows add their counts.
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "week", "reports", "self_reported")
    SELECT n."agent_id", c."outcome", c."week", sum(c."reports"), sum(c."self_reported")
      FROM "new_rows" n, "report_totals_counts"(n."feed_weeks", 1) c GROUP BY 1, 2, 3
    ON CONFLICT ("agent_id", "outcome", "week") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
    INSERT INTO "agent_version_totals" AS t ("agent_id", "version", "reports")
    SELECT n."agent_id", c."version", sum(c."reports") FROM "new_rows" n, "agent_version_counts"(n."version_counts", 1) c GROUP BY 1, 2
    ON CONFLICT ("agent_id", "version") DO UPDATE SET "reports" = t."reports" + excluded."reports";
  ELSIF TG_OP = 'DELETE' THEN
    -- Deleted rows take theirs away (the summary writer deletes and inserts).
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "week", "reports", "self_reported")
    SELECT o."agent_id", c."outcome", c."week", sum(c."reports"), sum(c."self_reported")
      FROM "old_rows" o, "report_totals_counts"(o."feed_weeks", -1) c GROUP BY 1, 2, 3
    ON CONFLICT ("agent_id", "outcome", "week") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
    INSERT INTO "agent_version_totals" AS t ("agent_id", "version", "reports")
    SELECT o."agent_id", c."version", sum(c."reports") FROM "old_rows" o, "agent_version_counts"(o."version_counts", -1) c GROUP BY 1, 2
    ON CONFLICT ("agent_id", "version") DO UPDATE SET "reports" = t."reports" + excluded."reports";
  ELSE
    -- A row's counts updated in place (the writer never does; a hand-made fix might).
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "week", "reports", "self_reported")
    SELECT x."agent_id", x."outcome", x."week", sum(x."reports"), sum(x."self_reported")
      FROM (SELECT OLD."agent_id", c.* FROM "report_totals_counts"(OLD."feed_weeks", -1) c
            UNION ALL
            SELECT NEW."agent_id", c.* FROM "report_totals_counts"(NEW."feed_weeks", 1) c) x
     GROUP BY 1, 2, 3
    ON CONFLICT ("agent_id", "outcome", "week") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
    INSERT INTO "agent_version_totals" AS t ("agent_id", "version", "reports")
    SELECT x."agent_id", x."version", sum(x."reports")
      FROM (SELECT OLD."agent_id", c.* FROM "agent_version_counts"(OLD."version_counts", -1) c
            UNION ALL
            SELECT NEW."agent_id", c.* FROM "agent_version_counts"(NEW."version_counts", 1) c) x
     GROUP BY 1, 2
    ON CONFLICT ("agent_id", "version") DO UPDATE SET "reports" = t."reports" + excluded."reports";
  END IF;
  RETURN NULL;
END $$;

-- The versions of the summaries already written, from their reports as the summary writer reads
-- them (approved, public merchant, active agent; self-reported ones included). The column is not
-- public, so this update announces no change (the announcing trigger is off meanwhile).
ALTER TABLE "merchant_agent_summaries" DISABLE TRIGGER "merchant_agent_summaries_announce_update";
UPDATE "merchant_agent_summaries" s SET "version_counts" = v."counts"
  FROM (SELECT c."merchant_id", c."agent_id", jsonb_object_agg(c."version_key", c."n") AS "counts"
          FROM (SELECT r."merchant_id", r."agent_id", r."version_key", count(*)::int AS "n"
                  FROM "reports" r
                  JOIN "merchants" m ON m."id" = r."merchant_id" AND m."is_public"
                  JOIN "agents" a ON a."id" = r."agent_id" AND a."active"
                 WHERE r."status" = 'APPROVED' AND r."version_key" IS NOT NULL
                 GROUP BY 1, 2, 3) c
         GROUP BY 1, 2) v
 WHERE s."merchant_id" = v."merchant_id" AND s."agent_id" = v."agent_id";
ALTER TABLE "merchant_agent_summaries" ENABLE TRIGGER "merchant_agent_summaries_announce_update";

INSERT INTO "agent_version_totals" ("agent_id", "version", "reports")
SELECT s."agent_id", c."version", sum(c."reports")
  FROM "merchant_agent_summaries" s, "agent_version_counts"(s."version_counts", 1) c GROUP BY 1, 2;

CREATE TRIGGER "summary_totals_inserted" AFTER INSERT ON "merchant_agent_summaries"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "summary_totals_apply"();
CREATE TRIGGER "summary_totals_deleted" AFTER DELETE ON "merchant_agent_summaries"
  REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "summary_totals_apply"();
CREATE TRIGGER "summary_totals_updated" AFTER UPDATE OF "feed_weeks", "version_counts", "agent_id" ON "merchant_agent_summaries"
  FOR EACH ROW EXECUTE FUNCTION "summary_totals_apply"();
CREATE TRIGGER "summary_totals_truncated" AFTER TRUNCATE ON "merchant_agent_summaries"
  FOR EACH STATEMENT EXECUTE FUNCTION "summary_totals_apply"();

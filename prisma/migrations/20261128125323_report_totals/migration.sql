-- CreateTable
CREATE TABLE "report_totals" (
    "agent_id" UUID NOT NULL,
    "outcome" "Outcome" NOT NULL,
    "reports" INTEGER NOT NULL DEFAULT 0,
    "self_reported" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "report_totals_pkey" PRIMARY KEY ("agent_id","outcome")
);

-- The report list's totals (GET /api/v1/reports without a merchant) summed every summary's counts
-- out of its jsonb document: 6 s at 100,000 merchants, again after every change. This table holds
-- the same sums per agent and overall outcome, independent and self-reported apart, and these
-- triggers keep it in the statement that writes the summaries: rows inserted add their counts,
-- rows deleted take theirs away (the summary writer deletes and inserts), a row whose summary is
-- updated in place moves by the difference, and a truncate empties it. Every writer of summaries
-- holds the directory version's row first (summaries.repository.ts lockMerchants), so two
-- writers never update these rows at once.
CREATE FUNCTION "report_totals_counts"("summary" JSONB, "sign" INTEGER)
RETURNS TABLE ("outcome" "Outcome", "reports" INTEGER, "self_reported" INTEGER) LANGUAGE sql STABLE AS $$
  SELECT o, sign * coalesce((summary->'counts'->>o::text)::int, 0), sign * coalesce((summary->'selfReportedCounts'->>o::text)::int, 0)
    FROM unnest(enum_range(NULL::"Outcome")) AS o
$$;

CREATE FUNCTION "report_totals_apply"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'TRUNCATE' THEN
    DELETE FROM "report_totals";
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "reports", "self_reported")
    SELECT n."agent_id", c."outcome", sum(c."reports"), sum(c."self_reported")
      FROM "new_rows" n, "report_totals_counts"(n."summary", 1) c GROUP BY 1, 2
    ON CONFLICT ("agent_id", "outcome") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "reports", "self_reported")
    SELECT o."agent_id", c."outcome", sum(c."reports"), sum(c."self_reported")
      FROM "old_rows" o, "report_totals_counts"(o."summary", -1) c GROUP BY 1, 2
    ON CONFLICT ("agent_id", "outcome") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
  ELSE
    -- A row's summary updated in place (the writer never does; a hand-made fix might).
    INSERT INTO "report_totals" AS t ("agent_id", "outcome", "reports", "self_reported")
    SELECT x."agent_id", x."outcome", sum(x."reports"), sum(x."self_reported")
      FROM (SELECT OLD."agent_id", c.* FROM "report_totals_counts"(OLD."summary", -1) c
            UNION ALL
            SELECT NEW."agent_id", c.* FROM "report_totals_counts"(NEW."summary", 1) c) x
     GROUP BY 1, 2
    ON CONFLICT ("agent_id", "outcome") DO UPDATE
      SET "reports" = t."reports" + excluded."reports", "self_reported" = t."self_reported" + excluded."self_reported";
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "report_totals_inserted" AFTER INSERT ON "merchant_agent_summaries"
  REFERENCING NEW TABLE AS "new_rows" FOR EACH STATEMENT EXECUTE FUNCTION "report_totals_apply"();
CREATE TRIGGER "report_totals_deleted" AFTER DELETE ON "merchant_agent_summaries"
  REFERENCING OLD TABLE AS "old_rows" FOR EACH STATEMENT EXECUTE FUNCTION "report_totals_apply"();
CREATE TRIGGER "report_totals_updated" AFTER UPDATE OF "summary", "agent_id" ON "merchant_agent_summaries"
  FOR EACH ROW EXECUTE FUNCTION "report_totals_apply"();
CREATE TRIGGER "report_totals_truncated" AFTER TRUNCATE ON "merchant_agent_summaries"
  FOR EACH STATEMENT EXECUTE FUNCTION "report_totals_apply"();

-- The totals of the summaries already written.
INSERT INTO "report_totals" ("agent_id", "outcome", "reports", "self_reported")
SELECT s."agent_id", c."outcome", sum(c."reports"), sum(c."self_reported")
  FROM "merchant_agent_summaries" s, "report_totals_counts"(s."summary", 1) c GROUP BY 1, 2;

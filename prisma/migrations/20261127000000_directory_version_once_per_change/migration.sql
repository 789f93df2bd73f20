-- Hand-written: one new directory version per statement that changed something public, and
-- none (no bump, no notification) for a statement that changed nothing public.
--
-- Until now the four tables keyed by merchant bumped the version in a BEFORE statement trigger
-- and an AFTER statement trigger announced it. An INSERT ... ON CONFLICT DO UPDATE (Prisma's
-- upsert of a sponsorship or an owner statement) fires the BEFORE triggers of both INSERT and
-- UPDATE: two bumps, announced as one version two ahead, which every listener read as a gap
-- and answered by dropping every cached answer. And the summaries' AFTER UPDATE trigger, which
-- cannot have a column list (transition tables forbid it), notified on a refresh that only
-- wrote "computed_at".
--
-- Now the BEFORE statement trigger only locks the version row (the one lock order: the version
-- row before any row of these tables, migration "directory_version"), and the AFTER statement
-- trigger bumps and announces, once for what its statement changed: the merchants it names, or
-- everything; when the statement changed no public value, it does neither. Each AFTER trigger
-- of an upsert (UPDATE's, then INSERT's) announces its own version, in order, so listeners see
-- consecutive versions. Payloads keep the forms of migration "directory_change_scope"
-- ("<version>" and "<version>:m:<ids>"); "<version>:-" is no longer sent.

CREATE FUNCTION "directory_version_lock"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "directory_version" WHERE "id" = 1 FOR NO KEY UPDATE;
  RETURN NULL;
END
$$;

-- Bumps the version and announces what changed: these merchants, or everything; nothing when
-- nothing public changed. The caller holds the version row (the BEFORE trigger took it).
CREATE OR REPLACE FUNCTION "directory_version_announce"(ids uuid[], everything boolean DEFAULT false) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  bumped BIGINT;
BEGIN
  IF NOT everything AND (ids IS NULL OR cardinality(ids) = 0) THEN
    RETURN;
  END IF;
  UPDATE "directory_version" SET "version" = "version" + 1, "changed_at" = clock_timestamp() WHERE "id" = 1
    RETURNING "version" INTO bumped;
  IF everything OR cardinality(ids) > 200 THEN
    PERFORM pg_notify('directory_version', bumped::text);
  ELSE
    PERFORM pg_notify('directory_version', bumped::text || ':m:' || array_to_string(ids, ','));
  END IF;
END
$$;

-- The evidence write path's own announcement (summaries.repository.ts announceChanged): the
-- function above bumps now, so this no longer bumps first.
CREATE OR REPLACE FUNCTION "directory_version_changed"(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "directory_version" WHERE "id" = 1 FOR NO KEY UPDATE;
  PERFORM "directory_version_announce"(ids);
END
$$;

DROP TRIGGER "merchants_directory_version_write" ON "merchants";
CREATE TRIGGER "merchants_directory_version_write" BEFORE INSERT OR UPDATE OR DELETE ON "merchants"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_lock"();

DROP TRIGGER "merchant_agent_summaries_directory_version_write" ON "merchant_agent_summaries";
-- As before, an update of "computed_at" alone does not take the version row: only the public
-- columns' updates can change anything (the AFTER trigger compares exactly those).
CREATE TRIGGER "merchant_agent_summaries_directory_version_write"
  BEFORE INSERT OR DELETE OR UPDATE OF "merchant_id", "agent_id", "summary", "rating", "report_count", "last_reported_at",
    "facets", "reach_level", "reach_confidence", "status_tokens", "status_bits" ON "merchant_agent_summaries"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_lock"();

DROP TRIGGER "owner_statements_directory_version_write" ON "owner_statements";
CREATE TRIGGER "owner_statements_directory_version_write" BEFORE INSERT OR UPDATE OR DELETE ON "owner_statements"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_lock"();

DROP TRIGGER "sponsorships_directory_version_write" ON "sponsorships";
CREATE TRIGGER "sponsorships_directory_version_write" BEFORE INSERT OR UPDATE OR DELETE ON "sponsorships"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_lock"();

-- No trigger uses it any more.
DROP FUNCTION "directory_version_bump_quiet"();

-- Hand-written: each announcement of a new directory version also says what it changed, so a
-- process's response cache drops only what the change may have altered (modules/directory/
-- version.ts). The payload on the "directory_version" channel is one of:
--   "<version>"                  anything may have changed (agents, categories, truncations,
--                                merchants hidden, shown or deleted, and changes of more than
--                                200 merchants at once);
--   "<version>:m:<id>,<id>,..."  only these merchants' public rows changed;
--   "<version>:-"                no public value changed (a statement that wrote equal values).
-- The four tables keyed by merchant keep bumping the version BEFORE each statement (the one
-- lock order, migration "directory_version"), quietly; an AFTER statement trigger with the
-- statement's transition tables then announces the version with the merchants it changed.
-- Summaries bump only when a public column is written: the refresh's UPDATE of "computed_at"
-- alone (a recomputation that found nothing new) moves nothing.

CREATE FUNCTION "directory_version_bump_quiet"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "directory_version" SET "version" = "version" + 1, "changed_at" = clock_timestamp() WHERE "id" = 1;
  RETURN NULL;
END
$$;

-- Announces the version this transaction now sees (its own bump: it holds the version row)
-- with what changed.
CREATE FUNCTION "directory_version_announce"(ids uuid[], everything boolean DEFAULT false) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  current_version BIGINT;
BEGIN
  SELECT "version" INTO current_version FROM "directory_version" WHERE "id" = 1;
  IF everything THEN
    PERFORM pg_notify('directory_version', current_version::text);
  ELSIF ids IS NULL OR cardinality(ids) = 0 THEN
    PERFORM pg_notify('directory_version', current_version::text || ':-');
  ELSIF cardinality(ids) > 200 THEN
    PERFORM pg_notify('directory_version', current_version::text);
  ELSE
    PERFORM pg_notify('directory_version', current_version::text || ':m:' || array_to_string(ids, ','));
  END IF;
END
$$;

-- A change of public evidence that the directory's tables may not show (a published report's
-- own fields; a decision whose recomputed summaries came out as stored): the one write path
-- for evidence (modules/aggregation/evidence.ts) bumps and announces its merchants itself.
CREATE FUNCTION "directory_version_changed"(ids uuid[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "directory_version" SET "version" = "version" + 1, "changed_at" = clock_timestamp() WHERE "id" = 1;
  PERFORM "directory_version_announce"(ids);
END
$$;

-- merchants: rows by id; an UPDATE counts the rows whose values changed. A merchant hidden,
-- shown or deleted is announced as everything: it must leave (or join) every list at once,
-- not within the lists' staleness bound.
CREATE FUNCTION "merchants_announce"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT n."id") INTO ids FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    IF EXISTS (SELECT 1 FROM old_rows) THEN
      PERFORM "directory_version_announce"(NULL, true);
      RETURN NULL;
    END IF;
  ELSIF EXISTS (SELECT 1 FROM new_rows n JOIN old_rows o ON o."id" = n."id" WHERE n."is_public" IS DISTINCT FROM o."is_public") THEN
    PERFORM "directory_version_announce"(NULL, true);
    RETURN NULL;
  ELSE
    SELECT array_agg(DISTINCT n."id") INTO ids
      FROM new_rows n JOIN old_rows o ON o."id" = n."id"
     WHERE n IS DISTINCT FROM o;
  END IF;
  PERFORM "directory_version_announce"(ids);
  RETURN NULL;
END
$$;

-- merchant_agent_summaries: rows by (merchant, agent); "computed_at" is not public.
CREATE FUNCTION "merchant_agent_summaries_announce"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT n."merchant_id") INTO ids FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT o."merchant_id") INTO ids FROM old_rows o;
  ELSE
    SELECT array_agg(DISTINCT n."merchant_id") INTO ids
      FROM new_rows n JOIN old_rows o ON o."merchant_id" = n."merchant_id" AND o."agent_id" = n."agent_id"
     WHERE (n."summary", n."rating", n."report_count", n."last_reported_at", n."facets", n."reach_level",
            n."reach_confidence", n."status_tokens", n."status_bits")
           IS DISTINCT FROM
           (o."summary", o."rating", o."report_count", o."last_reported_at", o."facets", o."reach_level",
            o."reach_confidence", o."status_tokens", o."status_bits");
  END IF;
  PERFORM "directory_version_announce"(ids);
  RETURN NULL;
END
$$;

-- owner_statements and sponsorships: rows by id, naming their merchant (before and after).
CREATE FUNCTION "merchant_rows_announce"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  ids uuid[];
BEGIN
  IF TG_OP = 'INSERT' THEN
    SELECT array_agg(DISTINCT n."merchant_id") INTO ids FROM new_rows n;
  ELSIF TG_OP = 'DELETE' THEN
    SELECT array_agg(DISTINCT o."merchant_id") INTO ids FROM old_rows o;
  ELSE
    SELECT array_agg(DISTINCT m.id) INTO ids FROM (
      SELECT n."merchant_id" AS id FROM new_rows n JOIN old_rows o ON o."id" = n."id" WHERE n IS DISTINCT FROM o
      UNION
      SELECT o."merchant_id" FROM new_rows n JOIN old_rows o ON o."id" = n."id" WHERE n IS DISTINCT FROM o
    ) m;
  END IF;
  PERFORM "directory_version_announce"(ids);
  RETURN NULL;
END
$$;

-- The triggers. A TRUNCATE keeps the loud bump (everything changed).
DROP TRIGGER "merchants_directory_version" ON "merchants";
CREATE TRIGGER "merchants_directory_version" BEFORE TRUNCATE ON "merchants"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "merchants_directory_version_write" BEFORE INSERT OR UPDATE OR DELETE ON "merchants"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump_quiet"();
CREATE TRIGGER "merchants_announce_insert" AFTER INSERT ON "merchants"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchants_announce"();
CREATE TRIGGER "merchants_announce_update" AFTER UPDATE ON "merchants"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchants_announce"();
CREATE TRIGGER "merchants_announce_delete" AFTER DELETE ON "merchants"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchants_announce"();

DROP TRIGGER "merchant_agent_summaries_directory_version" ON "merchant_agent_summaries";
CREATE TRIGGER "merchant_agent_summaries_directory_version" BEFORE TRUNCATE ON "merchant_agent_summaries"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "merchant_agent_summaries_directory_version_write"
  BEFORE INSERT OR DELETE OR UPDATE OF "merchant_id", "agent_id", "summary", "rating", "report_count", "last_reported_at",
    "facets", "reach_level", "reach_confidence", "status_tokens", "status_bits" ON "merchant_agent_summaries"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump_quiet"();
CREATE TRIGGER "merchant_agent_summaries_announce_insert" AFTER INSERT ON "merchant_agent_summaries"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_agent_summaries_announce"();
CREATE TRIGGER "merchant_agent_summaries_announce_update" AFTER UPDATE ON "merchant_agent_summaries"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_agent_summaries_announce"();
CREATE TRIGGER "merchant_agent_summaries_announce_delete" AFTER DELETE ON "merchant_agent_summaries"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_agent_summaries_announce"();

DROP TRIGGER "owner_statements_directory_version" ON "owner_statements";
CREATE TRIGGER "owner_statements_directory_version" BEFORE TRUNCATE ON "owner_statements"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "owner_statements_directory_version_write" BEFORE INSERT OR UPDATE OR DELETE ON "owner_statements"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump_quiet"();
CREATE TRIGGER "owner_statements_announce_insert" AFTER INSERT ON "owner_statements"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_rows_announce"();
CREATE TRIGGER "owner_statements_announce_update" AFTER UPDATE ON "owner_statements"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_rows_announce"();
CREATE TRIGGER "owner_statements_announce_delete" AFTER DELETE ON "owner_statements"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_rows_announce"();

DROP TRIGGER "sponsorships_directory_version" ON "sponsorships";
CREATE TRIGGER "sponsorships_directory_version" BEFORE TRUNCATE ON "sponsorships"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "sponsorships_directory_version_write" BEFORE INSERT OR UPDATE OR DELETE ON "sponsorships"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump_quiet"();
CREATE TRIGGER "sponsorships_announce_insert" AFTER INSERT ON "sponsorships"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_rows_announce"();
CREATE TRIGGER "sponsorships_announce_update" AFTER UPDATE ON "sponsorships"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_rows_announce"();
CREATE TRIGGER "sponsorships_announce_delete" AFTER DELETE ON "sponsorships"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION "merchant_rows_announce"();

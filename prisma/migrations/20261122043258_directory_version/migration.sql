-- CreateTable
CREATE TABLE "directory_version" (
    "id" SMALLINT NOT NULL DEFAULT 1,
    "version" BIGINT NOT NULL DEFAULT 0,
    "changed_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "directory_version_pkey" PRIMARY KEY ("id")
);

-- Hand-written: the single row, and the triggers that move it. BEFORE STATEMENT, so a
-- transaction takes the row's lock before any row lock on these tables (one lock order for
-- every writer), and the new version becomes visible exactly when the change commits.
INSERT INTO "directory_version" ("id", "version") VALUES (1, 0);

CREATE FUNCTION "directory_version_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "directory_version" SET "version" = "version" + 1, "changed_at" = clock_timestamp() WHERE "id" = 1;
  RETURN NULL;
END
$$;

CREATE TRIGGER "merchants_directory_version" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "merchants"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "merchant_agent_summaries_directory_version" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "merchant_agent_summaries"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "sponsorships_directory_version" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "sponsorships"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "agents_directory_version" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "agents"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "categories_directory_version" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "categories"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();
CREATE TRIGGER "category_legacy_names_directory_version" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "category_legacy_names"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();

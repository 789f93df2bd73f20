-- Hand-written: every bump of the directory version is also announced on the
-- "directory_version" channel, with the new version as payload. PostgreSQL delivers it to
-- every listening connection when the change commits (and never when it rolls back), so each
-- app process learns of a new version without asking on every request.
CREATE OR REPLACE FUNCTION "directory_version_bump"() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  bumped BIGINT;
BEGIN
  UPDATE "directory_version" SET "version" = "version" + 1, "changed_at" = clock_timestamp() WHERE "id" = 1
    RETURNING "version" INTO bumped;
  PERFORM pg_notify('directory_version', bumped::text);
  RETURN NULL;
END
$$;

-- Owner statements are public too (a merchant's ownerCompatibility).
CREATE TRIGGER "owner_statements_directory_version" BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON "owner_statements"
  FOR EACH STATEMENT EXECUTE FUNCTION "directory_version_bump"();

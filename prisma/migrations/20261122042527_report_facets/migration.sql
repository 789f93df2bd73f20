-- AlterTable
ALTER TABLE "merchant_agent_summaries" ADD COLUMN     "facets" JSONB NOT NULL DEFAULT '{}';

-- AlterTable
ALTER TABLE "merchants" ADD COLUMN     "report_facets" JSONB NOT NULL DEFAULT '{}';

-- Backfill (hand-written): the facets of the stored summaries, from the same approved reports of
-- public merchants and active agents that fed them (src/modules/aggregation/facets.ts), then
-- each merchant's merge of its summaries' facets.
UPDATE "merchant_agent_summaries" s
   SET "facets" = f.facets
  FROM (
    SELECT merchant_id, agent_id, jsonb_object_agg(token, newest ORDER BY token) AS facets
      FROM (
        SELECT r.merchant_id, r.agent_id, t.token,
               to_char(max(r.created_at) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS newest
          FROM "reports" r
          JOIN "merchants" m ON m.id = r.merchant_id AND m.is_public
          JOIN "agents" a ON a.id = r.agent_id AND a.active
          CROSS JOIN LATERAL (VALUES (r.outcome::text), ('@' || r.stage::text), (r.outcome::text || '@' || r.stage::text)) AS t(token)
         WHERE r.status = 'APPROVED' AND t.token IS NOT NULL
         GROUP BY r.merchant_id, r.agent_id, t.token
      ) tokens
     GROUP BY merchant_id, agent_id
  ) f
 WHERE s.merchant_id = f.merchant_id AND s.agent_id = f.agent_id;

UPDATE "merchants" m
   SET "report_facets" = f.facets
  FROM (
    SELECT merchant_id, jsonb_object_agg(token, newest) AS facets
      FROM (
        SELECT s.merchant_id, e.key AS token, max(e.value #>> '{}') AS newest
          FROM "merchant_agent_summaries" s, jsonb_each(s.facets) e
         GROUP BY s.merchant_id, e.key
      ) tokens
     GROUP BY merchant_id
  ) f
 WHERE m.id = f.merchant_id;

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_facets_idx" ON "merchant_agent_summaries" USING GIN ("facets");

-- CreateIndex
CREATE INDEX "merchants_report_facets_idx" ON "merchants" USING GIN ("report_facets");

-- AlterTable
ALTER TABLE "merchant_agent_summaries" ADD COLUMN     "reach_confidence" SMALLINT NOT NULL DEFAULT 0,
ADD COLUMN     "reach_level" SMALLINT NOT NULL DEFAULT 0,
ADD COLUMN     "status_tokens" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_agent_id_reach_level_reach_confide_idx" ON "merchant_agent_summaries"("agent_id", "reach_level" DESC, "reach_confidence" DESC, "last_reported_at" DESC);

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_status_tokens_idx" ON "merchant_agent_summaries" USING GIN ("status_tokens");

-- Summaries stored before the reach existed are recomputed by the upkeep's refresh right after
-- start (it recomputes rows computed more than a day ago); until then they are read without it.
UPDATE "merchant_agent_summaries" SET "computed_at" = '1970-01-01T00:00:00Z';

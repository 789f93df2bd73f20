-- AlterTable
ALTER TABLE "merchant_agent_summaries" ADD COLUMN     "self_reported_count" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "reports" ADD COLUMN     "address_hash" TEXT;

-- AlterTable
ALTER TABLE "status_changes" ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'status';

-- CreateIndex
CREATE INDEX "reports_address_hash_created_at_idx" ON "reports"("address_hash", "created_at");

-- CreateIndex
CREATE INDEX "reports_experience_trgm_idx" ON "reports" USING GIN ("experience" gin_trgm_ops);

-- Summaries stored before issue 37 (no self-reported split, no versions or regressions) are
-- recomputed by the upkeep's refresh right after start, as in "summary_verdict".
UPDATE "merchant_agent_summaries" SET "computed_at" = '1970-01-01T00:00:00Z';

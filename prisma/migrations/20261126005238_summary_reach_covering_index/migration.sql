-- DropIndex
DROP INDEX "merchant_agent_summaries_agent_id_reach_level_reach_confide_idx";

-- AlterTable
ALTER TABLE "merchant_agent_summaries" ADD COLUMN     "status_bits" BIGINT NOT NULL DEFAULT 0;

-- The stored tokens as bits (src/modules/aggregation/status-bits.ts: bit 6 * task + status, in
-- the spec's orders), so the task-status filter is right from the start; the next
-- recomputation of each summary writes the same from the engine.
UPDATE "merchant_agent_summaries" s
   SET "status_bits" = (
     SELECT COALESCE(bit_or(1::bigint << ((array_position(ARRAY['ACCESS','SEARCH','DETAILS','LOGIN','CART','CHECKOUT','PURCHASE'], split_part(t, ':', 1)) - 1) * 6
                                       + (array_position(ARRAY['supported','partial','blocked','unsupported','unknown','untested'], split_part(t, ':', 2)) - 1))), 0)
       FROM unnest(s."status_tokens") AS t)
 WHERE cardinality(s."status_tokens") > 0;

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_agent_id_reach_level_reach_confide_idx" ON "merchant_agent_summaries"("agent_id", "reach_level" DESC, "reach_confidence" DESC, "last_reported_at" DESC, "merchant_id", "report_count", "status_bits");

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_agent_id_report_count_idx" ON "merchant_agent_summaries"("agent_id", "report_count");

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_agent_id_last_reported_at_idx" ON "merchant_agent_summaries"("agent_id", "last_reported_at");

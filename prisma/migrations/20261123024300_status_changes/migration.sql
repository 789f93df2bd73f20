-- CreateTable
CREATE TABLE "status_changes" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "task" TEXT,
    "from_status" TEXT NOT NULL,
    "to_status" TEXT NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "status_changes_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "status_changes_changed_at_idx" ON "status_changes"("changed_at");

-- CreateIndex
CREATE INDEX "status_changes_merchant_id_changed_at_idx" ON "status_changes"("merchant_id", "changed_at");

-- CreateIndex
CREATE INDEX "status_changes_agent_id_changed_at_idx" ON "status_changes"("agent_id", "changed_at");

-- AddForeignKey
ALTER TABLE "status_changes" ADD CONSTRAINT "status_changes_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_changes" ADD CONSTRAINT "status_changes_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateEnum
CREATE TYPE "ClaimStatus" AS ENUM ('PENDING', 'VERIFIED', 'GRACE', 'LAPSED', 'REVOKED');

-- CreateEnum
CREATE TYPE "ClaimMethod" AS ENUM ('DNS', 'FILE', 'META');

-- CreateEnum
CREATE TYPE "OwnerSide" AS ENUM ('MERCHANT', 'AGENT');

-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "notify_owner_digest" BOOLEAN NOT NULL DEFAULT true;

-- AlterTable
ALTER TABLE "agents" ADD COLUMN     "vendor_website" TEXT;

-- AlterTable
ALTER TABLE "owner_statements" ADD COLUMN     "claim_id" UUID;

-- CreateTable
CREATE TABLE "vendor_statements" (
    "id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "statement" TEXT NOT NULL,
    "declared_at" DATE NOT NULL,
    "claim_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "vendor_statements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claims" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "side" "OwnerSide" NOT NULL,
    "merchant_id" UUID,
    "agent_id" UUID,
    "host" TEXT NOT NULL,
    "page_url" TEXT NOT NULL,
    "shared_host" BOOLEAN NOT NULL DEFAULT false,
    "token" TEXT NOT NULL,
    "status" "ClaimStatus" NOT NULL DEFAULT 'PENDING',
    "method" "ClaimMethod",
    "verified_at" TIMESTAMPTZ(3),
    "checked_at" TIMESTAMPTZ(3),
    "grace_until" TIMESTAMPTZ(3),
    "digest_until" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "claims_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "claim_checks" (
    "id" UUID NOT NULL,
    "claim_id" UUID NOT NULL,
    "method" "ClaimMethod" NOT NULL,
    "outcome" TEXT NOT NULL,
    "reason" TEXT,
    "detail" TEXT,
    "scheduled" BOOLEAN NOT NULL DEFAULT false,
    "checked_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "claim_checks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "report_replies" (
    "id" UUID NOT NULL,
    "report_id" UUID NOT NULL,
    "claim_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "side" "OwnerSide" NOT NULL,
    "body" TEXT NOT NULL,
    "status" "ReportStatus" NOT NULL DEFAULT 'PENDING',
    "feedback" TEXT,
    "moderated_at" TIMESTAMPTZ(3),
    "moderated_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "report_replies_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "correction_requests" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "claim_id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "proposed" JSONB NOT NULL,
    "note" TEXT NOT NULL,
    "status" "ReportStatus" NOT NULL DEFAULT 'PENDING',
    "feedback" TEXT,
    "decided_at" TIMESTAMPTZ(3),
    "decided_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "correction_requests_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "vendor_statements_agent_id_key" ON "vendor_statements"("agent_id");

-- CreateIndex
CREATE UNIQUE INDEX "claims_token_key" ON "claims"("token");

-- CreateIndex
CREATE INDEX "claims_merchant_id_status_idx" ON "claims"("merchant_id", "status");

-- CreateIndex
CREATE INDEX "claims_agent_id_status_idx" ON "claims"("agent_id", "status");

-- CreateIndex
CREATE INDEX "claims_status_checked_at_idx" ON "claims"("status", "checked_at");

-- CreateIndex
CREATE UNIQUE INDEX "claims_account_id_merchant_id_key" ON "claims"("account_id", "merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "claims_account_id_agent_id_key" ON "claims"("account_id", "agent_id");

-- CreateIndex
CREATE INDEX "claim_checks_claim_id_checked_at_idx" ON "claim_checks"("claim_id", "checked_at");

-- CreateIndex
CREATE INDEX "report_replies_report_id_status_idx" ON "report_replies"("report_id", "status");

-- CreateIndex
CREATE INDEX "report_replies_status_created_at_idx" ON "report_replies"("status", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "report_replies_report_id_claim_id_key" ON "report_replies"("report_id", "claim_id");

-- CreateIndex
CREATE INDEX "correction_requests_status_created_at_idx" ON "correction_requests"("status", "created_at");

-- CreateIndex
CREATE INDEX "correction_requests_merchant_id_created_at_idx" ON "correction_requests"("merchant_id", "created_at");

-- AddForeignKey
ALTER TABLE "owner_statements" ADD CONSTRAINT "owner_statements_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vendor_statements" ADD CONSTRAINT "vendor_statements_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "vendor_statements" ADD CONSTRAINT "vendor_statements_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claims" ADD CONSTRAINT "claims_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "claim_checks" ADD CONSTRAINT "claim_checks_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "report_replies" ADD CONSTRAINT "report_replies_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "reports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "report_replies" ADD CONSTRAINT "report_replies_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "report_replies" ADD CONSTRAINT "report_replies_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "correction_requests" ADD CONSTRAINT "correction_requests_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "correction_requests" ADD CONSTRAINT "correction_requests_claim_id_fkey" FOREIGN KEY ("claim_id") REFERENCES "claims"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "correction_requests" ADD CONSTRAINT "correction_requests_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

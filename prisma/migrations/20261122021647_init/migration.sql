-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "AccountRole" AS ENUM ('USER', 'MODERATOR', 'ADMIN');

-- CreateEnum
CREATE TYPE "TaskKey" AS ENUM ('ACCESS', 'SEARCH', 'DETAILS', 'LOGIN', 'CART', 'CHECKOUT', 'PURCHASE');

-- CreateEnum
CREATE TYPE "Outcome" AS ENUM ('WORKS', 'PARTIAL', 'BLOCKED', 'DOES_NOT_WORK', 'UNSURE');

-- CreateEnum
CREATE TYPE "Stage" AS ENUM ('ACCESS', 'BROWSE', 'DETAILS', 'CONFIGURE', 'CART', 'CHECKOUT', 'SHIPPING', 'PAYMENT_APPROVAL', 'PURCHASE');

-- CreateEnum
CREATE TYPE "FailureReason" AS ENUM ('NONE', 'EXPLICIT_BLOCK', 'CAPTCHA', 'INTERFACE', 'AUTHENTICATION', 'PAYMENT', 'OTHER');

-- CreateEnum
CREATE TYPE "ReportStatus" AS ENUM ('PENDING', 'APPROVED', 'REJECTED');

-- CreateEnum
CREATE TYPE "SponsorshipSource" AS ENUM ('subscription', 'publisher_owned');

-- CreateEnum
CREATE TYPE "SubmissionChannel" AS ENUM ('BROWSER', 'AGENT_KEY');

-- CreateTable
CREATE TABLE "accounts" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "role" "AccountRole" NOT NULL DEFAULT 'USER',
    "suspended" BOOLEAN NOT NULL DEFAULT false,
    "suspended_reason" TEXT,
    "suspended_at" TIMESTAMPTZ(3),
    "last_sign_in_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "accounts_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sign_in_tokens" (
    "id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "next_path" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "consumed_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "sign_in_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "session" (
    "sid" VARCHAR NOT NULL,
    "sess" JSON NOT NULL,
    "expire" TIMESTAMP(6) NOT NULL,

    CONSTRAINT "session_pkey" PRIMARY KEY ("sid")
);

-- CreateTable
CREATE TABLE "rate_limit_counters" (
    "key" TEXT NOT NULL,
    "hits" INTEGER NOT NULL,
    "reset_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "rate_limit_counters_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "agents" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "vendor" TEXT NOT NULL,
    "description" TEXT,
    "active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "agents_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "categories" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "categories_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "category_legacy_names" (
    "id" UUID NOT NULL,
    "name" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "category_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "category_legacy_names_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "merchants" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "website" TEXT NOT NULL,
    "category" TEXT NOT NULL,
    "category_id" UUID,
    "service_regions" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "is_public" BOOLEAN NOT NULL DEFAULT true,
    "approved_canonical" BOOLEAN NOT NULL DEFAULT false,
    "report_count" INTEGER NOT NULL DEFAULT 0,
    "last_reported_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "owner_statements" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "statement" TEXT NOT NULL,
    "task_claims" JSONB NOT NULL DEFAULT '{}',
    "declared_at" DATE NOT NULL,
    "ownership_evidence" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "owner_statements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "sponsorships" (
    "id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "source" "SponsorshipSource" NOT NULL,
    "placement" TEXT NOT NULL,
    "disclosure" TEXT NOT NULL,
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3),
    "billing_id" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "sponsorships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "reports" (
    "id" UUID NOT NULL,
    "account_id" UUID NOT NULL,
    "merchant_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "status" "ReportStatus" NOT NULL DEFAULT 'PENDING',
    "channel" "SubmissionChannel" NOT NULL,
    "capability_results" JSONB NOT NULL DEFAULT '{}',
    "outcome" "Outcome" NOT NULL,
    "outcome_supplied" BOOLEAN NOT NULL DEFAULT true,
    "experience" TEXT,
    "tested_at" DATE,
    "agent_version" TEXT,
    "region" TEXT,
    "task" TEXT,
    "stage" "Stage",
    "failure_reason" "FailureReason",
    "human_intervention" BOOLEAN,
    "privacy_confirmed" BOOLEAN NOT NULL,
    "moderation_feedback" TEXT,
    "moderation_notes" TEXT,
    "moderated_at" TIMESTAMPTZ(3),
    "moderated_by_id" UUID,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "reports_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "report_revisions" (
    "id" UUID NOT NULL,
    "report_id" UUID NOT NULL,
    "content" JSONB NOT NULL,
    "status" "ReportStatus" NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "report_revisions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "screenshot_evidence" (
    "id" UUID NOT NULL,
    "report_id" UUID NOT NULL,
    "storage_path" TEXT NOT NULL,
    "media_type" TEXT NOT NULL,
    "size_bytes" INTEGER NOT NULL,
    "sha256" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "screenshot_evidence_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "agent_keys" (
    "id" UUID NOT NULL,
    "key_hash" TEXT NOT NULL,
    "display_prefix" TEXT NOT NULL,
    "account_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "revoked_at" TIMESTAMPTZ(3),
    "last_used_at" TIMESTAMPTZ(3),

    CONSTRAINT "agent_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "moderation_audit_log" (
    "id" UUID NOT NULL,
    "actor_id" UUID,
    "action" TEXT NOT NULL,
    "report_id" UUID,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "from_status" "ReportStatus",
    "to_status" "ReportStatus",
    "reason" TEXT,
    "details" JSONB,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "moderation_audit_log_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "merchant_agent_summaries" (
    "merchant_id" UUID NOT NULL,
    "agent_id" UUID NOT NULL,
    "summary" JSONB NOT NULL,
    "rating" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "report_count" INTEGER NOT NULL DEFAULT 0,
    "last_reported_at" TIMESTAMPTZ(3),
    "computed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "merchant_agent_summaries_pkey" PRIMARY KEY ("merchant_id","agent_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "accounts_email_key" ON "accounts"("email");

-- CreateIndex
CREATE UNIQUE INDEX "sign_in_tokens_token_hash_key" ON "sign_in_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "sign_in_tokens_expires_at_idx" ON "sign_in_tokens"("expires_at");

-- CreateIndex
CREATE INDEX "IDX_session_expire" ON "session"("expire");

-- CreateIndex
CREATE INDEX "rate_limit_counters_reset_at_idx" ON "rate_limit_counters"("reset_at");

-- CreateIndex
CREATE UNIQUE INDEX "agents_slug_key" ON "agents"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "categories_name_key" ON "categories"("name");

-- CreateIndex
CREATE UNIQUE INDEX "categories_slug_key" ON "categories"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "category_legacy_names_name_key" ON "category_legacy_names"("name");

-- CreateIndex
CREATE UNIQUE INDEX "category_legacy_names_slug_key" ON "category_legacy_names"("slug");

-- CreateIndex
CREATE INDEX "category_legacy_names_category_id_idx" ON "category_legacy_names"("category_id");

-- CreateIndex
CREATE UNIQUE INDEX "merchants_slug_key" ON "merchants"("slug");

-- CreateIndex
CREATE INDEX "merchants_category_id_is_public_idx" ON "merchants"("category_id", "is_public");

-- CreateIndex
CREATE INDEX "merchants_is_public_name_idx" ON "merchants"("is_public", "name");

-- CreateIndex
CREATE INDEX "merchants_is_public_last_reported_at_idx" ON "merchants"("is_public", "last_reported_at");

-- CreateIndex
CREATE INDEX "merchants_is_public_report_count_idx" ON "merchants"("is_public", "report_count");

-- CreateIndex
CREATE INDEX "merchants_approved_canonical_is_public_id_idx" ON "merchants"("approved_canonical", "is_public", "id");

-- CreateIndex
CREATE INDEX "merchants_category_id_approved_canonical_is_public_id_idx" ON "merchants"("category_id", "approved_canonical", "is_public", "id");

-- CreateIndex
CREATE UNIQUE INDEX "owner_statements_merchant_id_key" ON "owner_statements"("merchant_id");

-- CreateIndex
CREATE UNIQUE INDEX "sponsorships_merchant_id_key" ON "sponsorships"("merchant_id");

-- CreateIndex
CREATE INDEX "sponsorships_starts_at_ends_at_idx" ON "sponsorships"("starts_at", "ends_at");

-- CreateIndex
CREATE INDEX "reports_merchant_id_agent_id_status_idx" ON "reports"("merchant_id", "agent_id", "status");

-- CreateIndex
CREATE INDEX "reports_status_created_at_idx" ON "reports"("status", "created_at");

-- CreateIndex
CREATE INDEX "reports_agent_id_status_outcome_stage_idx" ON "reports"("agent_id", "status", "outcome", "stage");

-- CreateIndex
CREATE INDEX "reports_account_id_id_idx" ON "reports"("account_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "reports_account_id_agent_id_merchant_id_key" ON "reports"("account_id", "agent_id", "merchant_id");

-- CreateIndex
CREATE INDEX "report_revisions_report_id_created_at_idx" ON "report_revisions"("report_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "screenshot_evidence_storage_path_key" ON "screenshot_evidence"("storage_path");

-- CreateIndex
CREATE INDEX "screenshot_evidence_report_id_idx" ON "screenshot_evidence"("report_id");

-- CreateIndex
CREATE UNIQUE INDEX "agent_keys_key_hash_key" ON "agent_keys"("key_hash");

-- CreateIndex
CREATE INDEX "agent_keys_account_id_created_at_idx" ON "agent_keys"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "moderation_audit_log_created_at_idx" ON "moderation_audit_log"("created_at");

-- CreateIndex
CREATE INDEX "moderation_audit_log_report_id_created_at_idx" ON "moderation_audit_log"("report_id", "created_at");

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_agent_id_rating_idx" ON "merchant_agent_summaries"("agent_id", "rating");

-- CreateIndex
CREATE INDEX "merchant_agent_summaries_computed_at_idx" ON "merchant_agent_summaries"("computed_at");

-- AddForeignKey
ALTER TABLE "category_legacy_names" ADD CONSTRAINT "category_legacy_names_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "categories"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchants" ADD CONSTRAINT "merchants_category_id_fkey" FOREIGN KEY ("category_id") REFERENCES "categories"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "owner_statements" ADD CONSTRAINT "owner_statements_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "sponsorships" ADD CONSTRAINT "sponsorships_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "reports" ADD CONSTRAINT "reports_moderated_by_id_fkey" FOREIGN KEY ("moderated_by_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "report_revisions" ADD CONSTRAINT "report_revisions_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "reports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "screenshot_evidence" ADD CONSTRAINT "screenshot_evidence_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "reports"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_account_id_fkey" FOREIGN KEY ("account_id") REFERENCES "accounts"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "agent_keys" ADD CONSTRAINT "agent_keys_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "moderation_audit_log" ADD CONSTRAINT "moderation_audit_log_actor_id_fkey" FOREIGN KEY ("actor_id") REFERENCES "accounts"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "moderation_audit_log" ADD CONSTRAINT "moderation_audit_log_report_id_fkey" FOREIGN KEY ("report_id") REFERENCES "reports"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchant_agent_summaries" ADD CONSTRAINT "merchant_agent_summaries_merchant_id_fkey" FOREIGN KEY ("merchant_id") REFERENCES "merchants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "merchant_agent_summaries" ADD CONSTRAINT "merchant_agent_summaries_agent_id_fkey" FOREIGN KEY ("agent_id") REFERENCES "agents"("id") ON DELETE CASCADE ON UPDATE CASCADE;

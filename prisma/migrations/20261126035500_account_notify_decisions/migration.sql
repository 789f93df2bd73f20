-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "notify_decisions" BOOLEAN NOT NULL DEFAULT true;

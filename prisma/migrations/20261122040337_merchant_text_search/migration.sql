-- CreateExtension
CREATE EXTENSION IF NOT EXISTS "pg_trgm";

-- CreateIndex
CREATE INDEX "merchants_name_trgm_idx" ON "merchants" USING GIN ("name" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "merchants_slug_trgm_idx" ON "merchants" USING GIN ("slug" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "merchants_website_trgm_idx" ON "merchants" USING GIN ("website" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "merchants_category_trgm_idx" ON "merchants" USING GIN ("category" gin_trgm_ops);

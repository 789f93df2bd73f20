-- AlterTable
ALTER TABLE "merchant_agent_summaries" ADD COLUMN     "list_json" TEXT,
ADD COLUMN     "list_stamp" TEXT;

-- The list's body of each summary, printed by the summary writer (issue 38), and the stamp of the
-- code that printed it (aggregation/summary-view.ts): a list joins these instead of building
-- every agent's body on each read. Empty for the rows written before: those are built as before
-- until the refresh prints them (an update of these two columns alone moves no directory version).

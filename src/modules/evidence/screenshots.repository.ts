// Screenshot rows: what was stored under DATA_DIR/evidence for which report. The storage path
// is private: only the moderators' screenshot route reads it.
import type { Db, PrismaClient } from '../../db/client.js';
import type { StoredScreenshot } from './screenshots.js';

/** Records a report's stored screenshots (in the transaction that creates the report). */
export async function insertScreenshots(db: Db, reportId: string, stored: readonly StoredScreenshot[]): Promise<void> {
  if (stored.length) await db.screenshotEvidence.createMany({ data: stored.map((s) => ({ ...s, reportId })) });
}

/** The stored file of one screenshot (the moderators' screenshot route only). */
export async function screenshotFile(prisma: PrismaClient, id: string) {
  return prisma.screenshotEvidence.findUnique({ where: { id }, select: { storagePath: true, mediaType: true, sizeBytes: true } });
}

/** Removes some of a report's screenshots (in the transaction that replaces it); returns their stored files, to delete after the commit. */
export async function deleteScreenshots(db: Db, reportId: string, ids: readonly string[]): Promise<string[]> {
  if (ids.length === 0) return [];
  const rows = await db.screenshotEvidence.findMany({ where: { reportId, id: { in: [...ids] } }, select: { storagePath: true } });
  await db.screenshotEvidence.deleteMany({ where: { reportId, id: { in: [...ids] } } });
  return rows.map((r) => r.storagePath);
}

// What the contribution form's pending-screenshot store holds on disk, and which sessions refer
// to it: for tests that a post leaves no file nobody refers to, and that the store keeps its bounds.
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import type pg from 'pg';
import { pendingDir, type PendingScreenshot } from '../../src/modules/reports/pending-screenshots.js';

export interface PendingFile {
  /** Relative to the pending directory: `<account>/<name>` (or a bare name). */
  rel: string;
  size: number;
}

/** Every file in DATA_DIR/evidence-pending, the lock directory aside. */
export function pendingFiles(dataDir: string): PendingFile[] {
  const root = pendingDir(dataDir);
  if (!existsSync(root)) return [];
  const files: PendingFile[] = [];
  for (const entry of readdirSync(root, { withFileTypes: true })) {
    if (entry.name === '.locks') continue;
    const names = entry.isDirectory() ? readdirSync(path.join(root, entry.name)).map((n) => `${entry.name}/${n}`) : [entry.name];
    for (const rel of names) files.push({ rel, size: statSync(path.join(root, rel)).size });
  }
  // Code-unit order, as Array.prototype.sort orders names.
  return files.sort((a, b) => (a.rel < b.rel ? -1 : a.rel > b.rel ? 1 : 0));
}

export interface StoredSession {
  sid: string;
  accountId: string | null;
  pending: PendingScreenshot[];
}

/** The live sessions as PostgreSQL holds them (what another request would read). */
export async function storedSessions(pool: pg.Pool): Promise<StoredSession[]> {
  const { rows } = await pool.query<{ sid: string; sess: { accountId?: string; pendingScreenshots?: PendingScreenshot[] } }>(
    'SELECT sid, sess FROM "session" WHERE expire > now()',
  );
  return rows.map((r) => ({ sid: r.sid, accountId: r.sess.accountId ?? null, pending: r.sess.pendingScreenshots ?? [] }));
}

/** Files on disk that no live session refers to. */
export async function orphanedFiles(pool: pg.Pool, dataDir: string): Promise<string[]> {
  const referenced = new Set((await storedSessions(pool)).flatMap((s) => s.pending.map((p) => p.file)));
  return pendingFiles(dataDir)
    .map((f) => f.rel)
    .filter((rel) => !referenced.has(rel));
}

/** Files and bytes per account directory (bare files count under ''). */
export function usageByAccount(dataDir: string): Map<string, { files: number; bytes: number }> {
  const usage = new Map<string, { files: number; bytes: number }>();
  for (const f of pendingFiles(dataDir)) {
    const account = f.rel.includes('/') ? f.rel.split('/')[0]! : '';
    const u = usage.get(account) ?? { files: 0, bytes: 0 };
    u.files += 1;
    u.bytes += f.size;
    usage.set(account, u);
  }
  return usage;
}

/** A valid PNG of about `size` bytes: a real 1×1 image, then padding (the type is read from the first bytes). */
export const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
export const pngOf = (size: number) => Buffer.concat([PNG, Buffer.alloc(Math.max(0, size - PNG.length), 0x2a)]);

// An app over a database holding the demo directory with its summaries computed, at a
// fixed moment, so tests can compare API output with the rows behind it.
import { loadDemoData } from '../../src/demo/load.js';
import { recomputeAllSummaries } from '../../src/modules/aggregation/summaries.service.js';
import { createTestApp, type TestApp } from './app.js';

export const DEMO_NOW = '2026-11-22T12:00:00.000Z';

export async function createDemoApp(options: Omit<Parameters<typeof createTestApp>[0] & object, 'now'> = {}): Promise<TestApp> {
  const t = await createTestApp({ now: DEMO_NOW, ...options });
  await loadDemoData(t.db.pool, { now: new Date(DEMO_NOW) });
  await recomputeAllSummaries(t.db.prisma, new Date(DEMO_NOW));
  return t;
}

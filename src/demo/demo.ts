// The demo directory of `npm start`: loaded once into an empty database, with its summaries.
import type { Database } from '../db/database.js';
import type { Logger } from '../logger.js';
import { recomputeAllSummaries } from '../modules/aggregation/summaries.service.js';
import { seedDemoDataIfEmpty } from './load.js';

export async function loadDemoIfEmpty(database: Pick<Database, 'pool' | 'prisma'>, logger?: Logger): Promise<void> {
  const now = new Date();
  const counts = await seedDemoDataIfEmpty(database.pool, { now });
  if (!counts) return;
  await recomputeAllSummaries(database.prisma, now);
  logger?.info({ counts }, 'loaded the demo directory into the empty database');
}

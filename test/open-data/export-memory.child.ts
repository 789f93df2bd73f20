// Run by export.test.ts in its own process (node --expose-gc): streams the whole dump of the
// database at DATABASE_URL through gzip into nothing, and prints the peak of the live heap
// (measured after a full collection every 1,000 lines) and the number of lines, as JSON.
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import { Readable } from 'node:stream';
import { createPool, createPrismaClient } from '../../src/db/client.js';
import { dumpLines } from '../../src/modules/open-data/export.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with --expose-gc');
const pool = createPool(process.env.DATABASE_URL!, 2);
const prisma = createPrismaClient(pool);
let lines = 0;
let peak = 0;
async function* measured() {
  for await (const line of dumpLines({ prisma, baseUrl: 'http://directory.test', now: new Date(process.env.NOW!) })) {
    lines += 1;
    if (lines % 1_000 === 0) {
      gc!();
      peak = Math.max(peak, process.memoryUsage().heapUsed);
    }
    yield line;
  }
}
const sink = new Writable({ write: (_chunk, _encoding, done) => done() });
await pipeline(Readable.from(measured()), createGzip(), sink);
await prisma.$disconnect();
await pool.end();
console.log(JSON.stringify({ lines, peakHeapBytes: peak }));

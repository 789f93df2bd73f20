import type { Socket } from 'node:net';
import pg from 'pg';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaClient, type Prisma } from '../generated/prisma/client.js';

export { PrismaClient };
export type { Prisma } from '../generated/prisma/client.js';

/** An interactive transaction's client. */
export type Tx = Prisma.TransactionClient;
/** The client or a transaction: what repositories take when they may run inside either. */
export type Db = PrismaClient | Tx;

export interface PoolTimeouts {
  /** Longest statement (PostgreSQL's statement_timeout); the client gives up after 2 s more of silence (boundSilence). */
  statementMs: number;
  /** Longest wait for a connection (also the connect timeout). */
  acquireMs: number;
}

/**
 * Connections a serving pool keeps open once made, however long they stay idle: opening one
 * takes 20-30 ms (SCRAM authentication, a new backend), which the first request after a quiet
 * spell paid for each connection it needed.
 */
const KEPT_CONNECTIONS = 4;

/**
 * A pool; with `timeouts` (the serving processes), no request waits on a database that hangs
 * longer than those bounds, and up to KEPT_CONNECTIONS connections stay open. Tools that run
 * long statements (seeding, migrations) pass none.
 */
export function createPool(url: string, max = 10, timeouts?: PoolTimeouts): pg.Pool {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    ...(timeouts
      ? {
          min: Math.min(KEPT_CONNECTIONS, max),
          connectionTimeoutMillis: timeouts.acquireMs,
          statement_timeout: timeouts.statementMs,
        }
      : {}),
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  if (timeouts) pool.on('connect', (client) => boundSilence(client, timeouts.statementMs + 2_000));
  return pool;
}

/**
 * A server that hangs never sends its statement_timeout: a connection silent for `ms` while a
 * query is in flight is closed, which fails that query ("Connection terminated", an outage) and
 * takes the connection out of the pool. pg's own query_timeout (a timer per query) did this, but
 * with it set every query's rows outlived the young generation, even once the query had
 * finished and its timer was cleared: promoted, and left to full collections (a stream of 620 KB
 * list pages: a 10-27 ms scavenge every ten pages and a full collection every ten seconds;
 * docs/decisions.md, issue 38). The socket's idle timer is one per connection and holds no row.
 */
function boundSilence(client: pg.PoolClient, ms: number): void {
  const socket = (client as unknown as { connection: { stream: Socket } }).connection.stream;
  socket.setTimeout(ms);
  socket.on('timeout', () => {
    // Idle in the pool, or between a transaction's statements: nothing is waiting on the server.
    if ((client as unknown as { readyForQuery: boolean }).readyForQuery) return;
    socket.destroy();
  });
}

export function createPrismaClient(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) });
}

/** Name of the application database created on the embedded server. */
export const EMBEDDED_DATABASE_NAME = 'directory';

/** Creates `name` on the server behind `adminUrl` unless it exists; returns its URL. */
export async function ensureDatabaseExists(adminUrl: string, name: string): Promise<string> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (!rowCount) await client.query(`CREATE DATABASE ${client.escapeIdentifier(name)}`);
  } finally {
    await client.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return url.toString();
}


// A fresh, migrated, empty database per caller, cloned from the run's template.
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import { createPool, createPrismaClient, type PrismaClient } from '../../src/db/client.js';

export interface TestDatabase {
  readonly url: string;
  readonly name: string;
  readonly pool: pg.Pool;
  readonly prisma: PrismaClient;
  drop(): Promise<void>;
}

export function adminDatabaseUrl(): string {
  return inject('adminDatabaseUrl');
}

export function databaseUrl(name: string): string {
  const url = new URL(adminDatabaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export async function adminQuery(sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminDatabaseUrl() });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** An empty database name on the test server; nothing is created. */
export function uniqueDatabaseName(prefix = 'acd_test'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '').slice(0, 16)}`;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const name = uniqueDatabaseName();
  await adminQuery(`CREATE DATABASE "${name}" TEMPLATE "${inject('templateDatabase')}"`);
  const url = databaseUrl(name);
  const pool = createPool(url, 5);
  const prisma = createPrismaClient(pool);
  return {
    url,
    name,
    pool,
    prisma,
    async drop() {
      await prisma.$disconnect().catch(() => undefined);
      await pool.end().catch(() => undefined);
      await adminQuery(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    },
  };
}

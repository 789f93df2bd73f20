// Starts one real PostgreSQL for the whole run (embedded, or TEST_DATABASE_URL's server),
// migrates a template database once, and hands both to the tests. Each test file then
// clones its own database from the template (test/setup/database.ts).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { startEphemeralDatabase, type EmbeddedDatabase } from '../../src/db/embedded.js';
import { applyMigrations } from '../../src/db/migrations.js';

declare module 'vitest' {
  export interface ProvidedContext {
    adminDatabaseUrl: string;
    templateDatabase: string;
    /** A scratch directory for the run (DATA_DIRs of test apps), removed at teardown. */
    scratchDir: string;
  }
}

const withDatabase = (url: string, name: string) => {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
};

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

export default async function setup(project: TestProject) {
  let embedded: EmbeddedDatabase | undefined;
  const adminUrl = process.env.TEST_DATABASE_URL || (embedded = await startEphemeralDatabase()).url;
  const template = `acd_template_${process.pid}`;
  try {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`);
    await adminQuery(adminUrl, `CREATE DATABASE "${template}"`);
    await applyMigrations(withDatabase(adminUrl, template));
  } catch (error) {
    await embedded?.stop();
    throw error;
  }

  project.provide('adminDatabaseUrl', adminUrl);
  project.provide('templateDatabase', template);
  const scratch = mkdtempSync(path.join(tmpdir(), 'acd-test-run-'));
  project.provide('scratchDir', scratch);

  return async () => {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS "${template}" WITH (FORCE)`).catch(() => undefined);
    await embedded?.stop();
    rmSync(scratch, { recursive: true, force: true });
  };
}

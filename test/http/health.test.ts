import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { watchDirectoryVersion } from '../../src/modules/directory/version.js';
import { createApp } from '../../src/app.js';
import { createPool, createPrismaClient } from '../../src/db/client.js';
import { createLogger } from '../../src/logger.js';
import { systemClock } from '../../src/clock.js';
import { freePort } from '../../src/net.js';
import { createTestApp, testConfig, type TestApp, TEST_BASE_URL } from '../setup/app.js';

describe('health and readiness', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('answers /healthz with 200 while the process is up', async () => {
    const res = await request(t.app).get('/healthz').expect(200);
    expect(res.body).toEqual({ status: 'ok' });
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('answers /readyz with 200 when the database answers', async () => {
    const res = await request(t.app).get('/readyz').expect(200);
    expect(res.body).toEqual({ status: 'ready' });
  });

  it('answers /readyz with a 503 problem when the database does not answer', async () => {
    const pool = createPool(`postgresql://postgres:x@127.0.0.1:${await freePort()}/none`);
    const versions = await watchDirectoryVersion(pool, { maxBackoffMs: 50 });
    const app = createApp({
      config: testConfig(),
      logger: createLogger('silent'),
      prisma: createPrismaClient(pool),
      pool,
      clock: systemClock,
      versions,
    });
    const res = await request(app).get('/readyz').expect(503);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.body).toMatchObject({ type: `${TEST_BASE_URL}/problems/not-ready`, status: 503, title: 'Service not ready' });
    expect(JSON.stringify(res.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1/);
    await versions.close();
    await pool.end();
  });
});

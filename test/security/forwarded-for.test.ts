// X-Forwarded-For and its cousins are a client's own words unless TRUST_PROXY says a proxy
// in front of us writes them: with the default (off), a new address in every request does
// not buy a new budget; with TRUST_PROXY=true the header is honoured (the control that shows
// these tests tell the two apart).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../setup/app.js';
import { accountWithKey } from '../setup/actors.js';

const LIMITS = { LIMIT_PUBLIC_PER_MINUTE: '3', LIMIT_PRIVATE_ADDRESS_PER_MINUTE: '3' };

/** Headers a client might forge to look like someone else, a different address each time. */
const spoofs = (i: number): Record<string, string> => ({
  'X-Forwarded-For': `203.0.113.${i + 1}`,
  'X-Real-IP': `198.51.100.${i + 1}`,
  Forwarded: `for=192.0.2.${i + 1}`,
  'X-Client-IP': `192.0.2.${100 + i}`,
  'True-Client-IP': `192.0.2.${150 + i}`,
  'CF-Connecting-IP': `192.0.2.${200 + i}`,
});

async function apps(env: Record<string, string>) {
  const t = await createTestApp({ env: { ...LIMITS, ...env } });
  const agent = await t.db.prisma.agent.create({ data: { slug: 'xff-agent', name: 'XFF Agent', vendor: 'V' } });
  const { auth } = await accountWithKey(t, 'xff@example.org', agent.id);
  return { t, auth };
}

describe('X-Forwarded-For with TRUST_PROXY off (the default)', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  beforeAll(async () => {
    ({ t, auth } = await apps({}));
    expect(t.config.trustProxy).toBe(false);
  });
  afterAll(() => t.close());

  const nextWindow = () => t.clock.advance(60_000);

  it('does not let a new X-Forwarded-For on every request escape the public API limit', async () => {
    nextWindow();
    for (let i = 0; i < 3; i++) {
      await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', `203.0.113.${i + 1}`).expect(200);
    }
    const limited = await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', '203.0.113.99');
    expect(limited.status).toBe(429);
    expect(limited.headers['retry-after']).toBeTruthy();
  });

  it('does not let any forwarding header escape it, nor a chain of addresses', async () => {
    nextWindow();
    for (let i = 0; i < 3; i++) await request(t.app).get('/api/v1/agents').set(spoofs(i)).expect(200);
    expect((await request(t.app).get('/api/v1/agents').set(spoofs(3))).status).toBe(429);
    expect((await request(t.app).get('/api/v1/agents').set('X-Forwarded-For', '10.0.0.1, 203.0.113.200, 127.0.0.1')).status).toBe(429);
  });

  it('does not let it escape the pages limit', async () => {
    nextWindow();
    for (let i = 0; i < 3; i++) await request(t.app).get('/how-it-works').set(spoofs(i)).expect(200);
    const limited = await request(t.app).get('/how-it-works').set(spoofs(3));
    expect(limited.status).toBe(429);
    expect(limited.headers['content-type']).toMatch(/^text\/html/);
  });

  it('does not let it escape the private per-address limit', async () => {
    nextWindow();
    for (let i = 0; i < 3; i++) await request(t.app).get('/api/v1/automation/queue').set(auth).set(spoofs(i)).expect(200);
    expect((await request(t.app).get('/api/v1/automation/queue').set(auth).set(spoofs(3))).status).toBe(429);
  });
});

describe('X-Forwarded-For with TRUST_PROXY=true (the control)', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  beforeAll(async () => {
    ({ t, auth } = await apps({ TRUST_PROXY: 'true' }));
  });
  afterAll(() => t.close());

  it('gives each forwarded address its own public budget', async () => {
    t.clock.advance(60_000);
    for (let i = 0; i < 3; i++) await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', '203.0.113.1').expect(200);
    expect((await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', '203.0.113.1')).status).toBe(429);
    // Another address still has its three.
    for (let i = 0; i < 3; i++) await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', '203.0.113.2').expect(200);
    for (let i = 0; i < 3; i++) await request(t.app).get('/how-it-works').set('X-Forwarded-For', `203.0.113.${10 + i}`).expect(200);
    await request(t.app).get('/how-it-works').set('X-Forwarded-For', '203.0.113.13').expect(200);
    for (let i = 0; i < 4; i++) await request(t.app).get('/api/v1/automation/queue').set(auth).set('X-Forwarded-For', `203.0.113.${20 + i}`).expect(200);
  });
});

describe('X-Forwarded-For with TRUST_PROXY=true, when the forwarded text is not an address', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  beforeAll(async () => {
    ({ t, auth } = await apps({ TRUST_PROXY: 'true' }));
  });
  afterAll(() => t.close());

  const junk = (i: number) => [`${'x'.repeat(8_000)}${i}`, `not-an-address-${i}`, `203.0.113.${i}:80`, `<script>${i}`, `999.1.1.${i}`][i % 5]!;

  it('counts every request whose forwarded text is no address under the connecting address, one budget', async () => {
    t.clock.advance(60_000);
    for (let i = 0; i < 3; i++) await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', junk(i)).expect(200);
    const limited = await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', junk(3));
    expect(limited.status).toBe(429);
    // A real forwarded address still has its own budget.
    await request(t.app).get('/api/v1/categories').set('X-Forwarded-For', '203.0.113.77').expect(200);
  });

  it('never stores a forwarded text as a limit key', async () => {
    t.clock.advance(60_000);
    for (let i = 0; i < 3; i++) await request(t.app).get('/api/v1/automation/queue').set(auth).set('X-Forwarded-For', junk(i)).expect(200);
    expect((await request(t.app).get('/api/v1/automation/queue').set(auth).set('X-Forwarded-For', junk(5))).status).toBe(429);
    const { rows } = await t.db.pool.query<{ key: string }>('SELECT key FROM rate_limit_counters');
    expect(rows.length).toBeGreaterThan(0);
    for (const { key } of rows) expect(key, key.slice(0, 80)).not.toMatch(/xxxx|not-an-address|script|999\./);
    expect(Math.max(...rows.map((r) => r.key.length))).toBeLessThan(200);
  });
});

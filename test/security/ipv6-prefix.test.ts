// One IPv6 client holds a whole /64: every limit counted per client address counts an IPv6
// address by its /64 (an IPv4 address alone, an IPv4-mapped one as its IPv4 address), so
// moving within the /64 buys no new budget while a neighbouring /64 has its own. Shown through
// X-Forwarded-For under TRUST_PROXY=true, the way a proxy in front of us reports clients.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accountWithKey } from '../setup/actors.js';
import { createTestApp, TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { captureMailer, csrfTokenOf } from '../setup/session.js';

const SAME_64 = ['2001:db8:1:2::1', '2001:db8:1:2:ffff:ffff:ffff:fffe', '2001:DB8:1:2:0:0:0:3', '2001:db8:1:2:abcd::9'];
const NEXT_64 = '2001:db8:1:3::1';

describe('per-address limits under TRUST_PROXY=true', () => {
  let t: TestApp;
  let auth: { Authorization: string };
  beforeAll(async () => {
    t = await createTestApp({
      env: { TRUST_PROXY: 'true', LIMIT_PUBLIC_PER_MINUTE: '3', LIMIT_PRIVATE_ADDRESS_PER_MINUTE: '3', LIMIT_FAILED_KEYS_PER_ADDRESS_PER_MINUTE: '2' },
    });
    const agent = await t.db.prisma.agent.create({ data: { slug: 'v6-agent', name: 'V6 Agent', vendor: 'V' } });
    ({ auth } = await accountWithKey(t, 'v6@example.org', agent.id));
  });
  afterAll(() => t.close());
  const nextWindow = () => t.clock.advance(60_000);
  const from = (address: string) => ({ 'X-Forwarded-For': address });

  it('gives two addresses in one /64 one public budget, and two /64s two', async () => {
    nextWindow();
    for (const address of SAME_64.slice(0, 3)) await request(t.app).get('/api/v1/categories').set(from(address)).expect(200);
    const limited = await request(t.app).get('/api/v1/categories').set(from(SAME_64[3]!));
    expect(limited.status).toBe(429);
    expect(limited.headers['ratelimit']).toMatch(/^"public"; r=0;/);
    await request(t.app).get('/api/v1/categories').set(from(NEXT_64)).expect(200);
  });

  it('counts an IPv4 address alone, and an IPv4-mapped IPv6 address as that IPv4 address', async () => {
    nextWindow();
    for (const address of ['203.0.113.7', '::ffff:203.0.113.7', '203.0.113.7']) {
      await request(t.app).get('/api/v1/agents').set(from(address)).expect(200);
    }
    expect((await request(t.app).get('/api/v1/agents').set(from('::ffff:203.0.113.7'))).status).toBe(429);
    await request(t.app).get('/api/v1/agents').set(from('203.0.113.8')).expect(200);
  });

  it('counts pages per /64 too', async () => {
    nextWindow();
    for (const address of SAME_64.slice(0, 3)) await request(t.app).get('/how-it-works').set(from(address)).expect(200);
    expect((await request(t.app).get('/how-it-works').set(from(SAME_64[3]!))).status).toBe(429);
    await request(t.app).get('/how-it-works').set(from(NEXT_64)).expect(200);
  });

  it('counts private requests per /64 too, before the key is checked', async () => {
    nextWindow();
    for (const address of SAME_64.slice(0, 3)) await request(t.app).get('/api/v1/automation/queue').set(auth).set(from(address)).expect(200);
    expect((await request(t.app).get('/api/v1/automation/queue').set(auth).set(from(SAME_64[3]!))).status).toBe(429);
    await request(t.app).get('/api/v1/automation/queue').set(auth).set(from(NEXT_64)).expect(200);
  });

  it('counts refused keys per /64 too', async () => {
    nextWindow();
    const wrong = { Authorization: 'Bearer acd_not-a-key' };
    const network = ['2001:db8:9:9::1', '2001:db8:9:9::2', '2001:db8:9:9:1:2:3:4'];
    for (const address of network.slice(0, 2)) expect((await request(t.app).get('/api/v1/automation/queue').set(wrong).set(from(address))).status).toBe(401);
    expect((await request(t.app).get('/api/v1/automation/queue').set(wrong).set(from(network[2]!))).status).toBe(429);
    expect((await request(t.app).get('/api/v1/automation/queue').set(wrong).set(from('2001:db8:9:a::1'))).status).toBe(401);
  });
});

describe('sign-in per client address under TRUST_PROXY=true', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ mailer: captureMailer(), env: { TRUST_PROXY: 'true', LIMIT_SIGN_IN_PER_CLIENT_PER_HOUR: '2' } });
  });
  afterAll(() => t.close());

  const requestLink = async (address: string, email: string) => {
    const agent = request.agent(t.app);
    const page = await agent.get('/sign-in').set('X-Forwarded-For', address).expect(200);
    return agent
      .post('/sign-in')
      .set('X-Forwarded-For', address)
      .set('Origin', TEST_BASE_URL)
      .type('form')
      .send({ email, _csrf: csrfTokenOf(page.text) });
  };

  it('counts sign-in requests per /64 too', async () => {
    expect((await requestLink(SAME_64[0]!, 'one@example.org')).status).toBe(200);
    expect((await requestLink(SAME_64[1]!, 'two@example.org')).status).toBe(200);
    expect((await requestLink(SAME_64[2]!, 'three@example.org')).status).toBe(429);
    expect((await requestLink(NEXT_64, 'four@example.org')).status).toBe(200);
  });
});

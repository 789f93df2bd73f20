// Screenshots reach moderators only, through /admin/evidence/:id with their media type;
// never a static path, and the storage path never appears in any page.
import path from 'node:path';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_BASE_URL, type TestApp } from '../setup/app.js';
import { accountWithKey, targets } from '../setup/actors.js';
import { csrfTokenOf } from '../setup/session.js';
import { adminTestApp, MODERATOR, USER, type Client } from './helpers.js';

const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(64, 1)]);

describe('screenshot evidence on /admin', () => {
  let t: TestApp;
  let as: (email: string) => Promise<Client>;
  let moderator: Client;
  let writer: Client;
  let reportId: string;
  let evidence: Array<{ id: string; storagePath: string; mediaType: string }>;

  beforeAll(async () => {
    ({ t, as } = await adminTestApp());
    moderator = await as(MODERATOR);
    writer = await as('writer@example.org');
    const T = await targets(t);
    const page = await writer.get('/reports/new').expect(200);
    const res = await writer
      .post('/reports/new')
      .set('Origin', TEST_BASE_URL)
      .field('_csrf', csrfTokenOf(page.text))
      .field('adId', T.merchants[3]!.id)
      .field('agentId', T.agents[0]!.id)
      .field('outcome', 'BLOCKED')
      .field('privacy', 'on')
      .attach('screenshots', PNG, 'shot.png')
      .attach('screenshots', JPEG, 'photo.jpg');
    expect(res.status, res.text.slice(0, 300)).toBe(303);
    reportId = /\/reports\/([^/]+)\/review/.exec(res.headers.location as string)![1]!;
    evidence = await t.db.prisma.screenshotEvidence.findMany({ where: { reportId }, orderBy: { createdAt: 'asc' } });
    expect(evidence).toHaveLength(2);
  });
  afterAll(() => t.close());

  it('streams each screenshot to a moderator with its media type', async () => {
    const png = evidence.find((e) => e.mediaType === 'image/png')!;
    const jpeg = evidence.find((e) => e.mediaType === 'image/jpeg')!;
    const a = await moderator.get(`/admin/evidence/${png.id}`).expect(200);
    expect(a.headers['content-type']).toBe('image/png');
    expect(a.headers['cache-control']).toBe('no-store');
    expect(a.headers['x-content-type-options']).toBe('nosniff');
    expect(Buffer.compare(a.body as Buffer, PNG)).toBe(0);
    const b = await moderator.get(`/admin/evidence/${jpeg.id}`).expect(200);
    expect(b.headers['content-type']).toBe('image/jpeg');
    expect(Buffer.compare(b.body as Buffer, JPEG)).toBe(0);
  });

  it('links the screenshots on the report page without ever showing where they are stored', async () => {
    const res = await moderator.get(`/admin/reports/${reportId}`).expect(200);
    for (const e of evidence) {
      expect(res.text).toContain(`src="/admin/evidence/${e.id}"`);
      expect(res.text).not.toContain(e.storagePath);
      expect(res.text).not.toContain(path.basename(e.storagePath));
    }
    expect(res.text).not.toContain(t.config.dataDir);
    const queue = await moderator.get('/admin/reports').expect(200);
    for (const e of evidence) expect(queue.text).not.toContain(path.basename(e.storagePath));
    const review = await writer.get(`/reports/${reportId}/review`).expect(200);
    for (const e of evidence) expect(review.text).not.toContain(path.basename(e.storagePath));
  });

  it('refuses the author, another user, someone signed out and an agent key', async () => {
    const id = evidence[0]!.id;
    const author = await writer.get(`/admin/evidence/${id}`);
    expect(author.status).toBe(403);
    expect(author.headers['content-type']).toMatch(/text\/html/);
    const other = await (await as(USER)).get(`/admin/evidence/${id}`);
    expect(other.status).toBe(403);
    const signedOut = await request(t.app).get(`/admin/evidence/${id}`);
    expect(signedOut.status).toBe(303);
    expect(signedOut.headers.location).toBe(`/sign-in?next=${encodeURIComponent(`/admin/evidence/${id}`)}`);
    const agent = await t.db.prisma.agent.findFirstOrThrow({ where: { active: true } });
    const { auth } = await accountWithKey(t, 'writer@example.org', agent.id);
    expect((await request(t.app).get(`/admin/evidence/${id}`).set(auth)).status).toBe(403);
  });

  it('serves no screenshot from a static path, and unknown ids are 404s', async () => {
    const name = path.basename(evidence[0]!.storagePath);
    for (const p of [`/static/${name}`, `/static/evidence/${name}`, `/evidence/${name}`, `/static/../evidence/${name}`]) {
      expect((await request(t.app).get(p)).status, p).toBe(404);
    }
    expect((await moderator.get('/admin/evidence/00000000-0000-7000-8000-000000000000')).status).toBe(404);
    expect((await moderator.get('/admin/evidence/not-an-id')).status).toBe(404);
  });

  it('does not follow a stored path out of the evidence directory', async () => {
    const row = await t.db.prisma.screenshotEvidence.create({
      data: { reportId, storagePath: '/etc/passwd', mediaType: 'image/png', sizeBytes: 10, sha256: 'x'.repeat(64) },
    });
    expect((await moderator.get(`/admin/evidence/${row.id}`)).status).toBe(404);
  });
});

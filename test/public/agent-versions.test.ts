// GET /api/v1/agents lists, for each agent, the versions seen in its public approved reports,
// newest first (by the newest test date, else report date, naming the version), so an agent can
// find and name its own. Pending, rejected and hidden-merchant reports name no version.
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { aCategory, aMerchant, anAgent, aReport } from '../factories/index.js';
import { createTestApp, type TestApp } from '../setup/app.js';

describe('agent versions in the registry', () => {
  let t: TestApp;
  let agentSlug: string;
  let quietSlug: string;
  beforeAll(async () => {
    t = await createTestApp({ now: '2026-11-22T12:00:00Z' });
    const prisma = t.db.prisma;
    const category = await aCategory(prisma);
    const agent = await anAgent(prisma, { slug: 'versioned-agent' });
    const quiet = await anAgent(prisma, { slug: 'quiet-agent' });
    agentSlug = agent.slug;
    quietSlug = quiet.slug;
    const shop = () => aMerchant(prisma, { categoryId: category.id });
    const hidden = await aMerchant(prisma, { categoryId: category.id, isPublic: false });
    const report = async (version: string | null, status: 'APPROVED' | 'PENDING' | 'REJECTED', testedAt: string | null, createdAt: string, merchantId?: string) => {
      await aReport(
        prisma,
        {
          merchantId: merchantId ?? (await shop()).id,
          agentId: agent.id,
          status,
          testedAt: testedAt ? new Date(`${testedAt}T00:00:00Z`) : undefined,
          createdAt: new Date(createdAt),
          agentVersion: version ?? undefined,
        },
        new Date(createdAt),
      );
    };
    await report('2.4.1', 'APPROVED', '2026-11-01', '2026-11-02T10:00:00Z');
    await report('2.4.1', 'APPROVED', null, '2026-10-15T10:00:00Z');
    // Reported later but tested earlier: the test date decides.
    await report('2.3.0', 'APPROVED', '2026-09-01', '2026-11-20T10:00:00Z');
    await report('2.5.0-beta', 'APPROVED', null, '2026-11-10T10:00:00Z');
    // Not public: never listed.
    await report('9.9.9-pending', 'PENDING', null, '2026-11-21T10:00:00Z');
    await report('9.9.9-rejected', 'REJECTED', null, '2026-11-21T10:00:00Z');
    await report('9.9.9-hidden', 'APPROVED', null, '2026-11-21T10:00:00Z', hidden.id);
    await report(null, 'APPROVED', null, '2026-11-21T11:00:00Z');
  });
  afterAll(() => t.close());

  it('lists each version once, newest first, with its count and date; nothing unpublished; [] without any', async () => {
    const res = await request(t.app).get('/api/v1/agents').expect(200);
    const agent = res.body.data.find((a: { slug: string }) => a.slug === agentSlug);
    expect(agent.versions).toEqual([
      { version: '2.5.0-beta', reportCount: 1, lastSeenAt: '2026-11-10T10:00:00.000Z' },
      { version: '2.4.1', reportCount: 2, lastSeenAt: '2026-11-01T00:00:00.000Z' },
      { version: '2.3.0', reportCount: 1, lastSeenAt: '2026-09-01T00:00:00.000Z' },
    ]);
    expect(res.body.data.find((a: { slug: string }) => a.slug === quietSlug).versions).toEqual([]);
  });

  it('is described in the OpenAPI document and the contribution rules', async () => {
    const doc = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body;
    expect(doc.paths['/agents'].get.responses['200'].content['application/json'].schema.$ref).toBe('#/components/schemas/RegistryAgentList');
    expect(doc.components.schemas.RegistryAgent.properties.versions.description).toContain('newest first');
    const schema = (await request(t.app).get('/api/v1/contribution-schema').expect(200)).body;
    expect(schema.rules.agentVersion).toContain('not seen yet is accepted as given');
    expect(schema.rules.agentVersion).toContain("listed in the agent's versions");
  });
});

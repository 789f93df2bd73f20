import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TASKS } from '../../src/modules/aggregation/constants.js';
import { createTestApp, type TestApp } from '../setup/app.js';

describe('GET /api/v1/contribution-schema', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp({ env: { LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '60', LIMIT_BROWSER_SUBMISSIONS_PER_HOUR: '12' } });
  });
  afterAll(() => t.close());

  it('lists tasks, outcomes, stages, failure reasons, limits and the body schema', async () => {
    const res = await request(t.app).get('/api/v1/contribution-schema').expect(200);
    expect(res.body.tasks.map((x: { key: string }) => x.key)).toEqual([...TASKS]);
    expect(res.body.tasks[0]).toEqual({ key: 'ACCESS', label: 'Website access' });
    expect(res.body.outcomes).toContainEqual({ key: 'DOES_NOT_WORK', label: "Doesn't work" });
    expect(res.body.stages).toContainEqual({ key: 'PURCHASE', label: 'Complete purchase (a reported completed purchase)' });
    expect(res.body.failureReasons).toContainEqual({ key: 'CAPTCHA', label: 'CAPTCHA / human verification' });
    expect(res.body.limits).toMatchObject({
      requestBodyBytes: 16384,
      experienceMaxLength: 4000,
      browserSubmissionsPerAccountPerHour: 12,
      changedAgentSubmissionsPerAccountPerHour: 60,
      keyLifetimeDays: 90,
      queueLimit: { min: 1, max: 50, default: 20 },
      retestAfterDays: { min: 7, max: 365 },
      emptyQueueWaitMinutes: 60,
    });
    expect(res.body.privacyConditions).toHaveLength(3);
    expect(res.body.body).toMatchObject({ type: 'object', additionalProperties: false, required: expect.arrayContaining(['adId', 'agentId', 'privacy']) });
    expect(Object.keys(res.body.body.properties.capabilityResults.properties)).toEqual([...TASKS]);
  });

  it('is linked from the OpenAPI document', async () => {
    const doc = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body;
    expect(doc.paths['/contribution-schema']).toBeDefined();
    expect(doc.info.description).toContain('/api/v1/contribution-schema');
  });
});

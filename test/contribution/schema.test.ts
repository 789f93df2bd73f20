import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FAILURE_REASONS, OUTCOMES, STAGES, TASKS } from '../../src/modules/aggregation/constants.js';
import { definitionTexts, REPORTING_CASES, REPORTING_RULES, reportDefinitions } from '../../src/modules/reports/definitions.js';
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
    expect(res.body.tasks[0]).toMatchObject({ key: 'ACCESS', label: 'Website access', definition: expect.any(String), example: expect.any(String) });
    expect(res.body.outcomes).toContainEqual(expect.objectContaining({ key: 'DOES_NOT_WORK', label: "Doesn't work" }));
    expect(res.body.stages).toContainEqual(expect.objectContaining({ key: 'PURCHASE', label: 'Complete purchase (a reported completed purchase)' }));
    expect(res.body.failureReasons).toContainEqual(expect.objectContaining({ key: 'CAPTCHA', label: 'CAPTCHA / human verification' }));
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

  it('defines every task, outcome, stage and failure reason, and states every rule, identically in the schema, OpenAPI and the guide', async () => {
    const schema = (await request(t.app).get('/api/v1/contribution-schema').expect(200)).body;
    const doc = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body;
    const guide = ((await request(t.app).get('/agent-guide').expect(200)).text + (await request(t.app).get('/agent-guide/reference').expect(200)).text).replace(/\s+/g, ' ');

    // Every key has a definition (PARTIAL included), and the schema carries exactly the module's.
    const defs = reportDefinitions();
    expect(defs.tasks.map((d) => d.key)).toEqual([...TASKS]);
    expect(defs.outcomes.map((d) => d.key)).toEqual([...OUTCOMES]);
    expect(defs.stages.map((d) => d.key)).toEqual([...STAGES]);
    expect(defs.failureReasons.map((d) => d.key)).toEqual([...FAILURE_REASONS]);
    for (const d of [...defs.tasks, ...defs.outcomes, ...defs.stages, ...defs.failureReasons]) expect(d.definition.length, d.key).toBeGreaterThan(10);
    expect({ tasks: schema.tasks, outcomes: schema.outcomes, stages: schema.stages, failureReasons: schema.failureReasons, rules: schema.rules, cases: schema.cases }).toEqual(defs);

    // Each definition and rule is stated once, in the contribution schema: the field descriptions
    // (OpenAPI's ReportSubmission and the schema's body) point there instead of repeating them,
    // and the agent guide quotes them.
    const submission = JSON.stringify(doc.components.schemas.ReportSubmission);
    const body = JSON.stringify(schema.body);
    const texts = definitionTexts();
    expect(texts.length).toBeGreaterThan(40);
    for (const text of texts) {
      const json = JSON.stringify(text).slice(1, -1);
      expect(JSON.stringify(schema).split(json).length - 1, `contribution schema: ${text}`).toBe(1);
      expect(submission, `OpenAPI: ${text}`).not.toContain(json);
      expect(body, `contribution schema body: ${text}`).not.toContain(json);
      expect(guide, `guide: ${text}`).toContain(text);
    }
    for (const field of ['capabilityResults', 'outcome', 'stage', 'failureReason']) {
      expect(doc.components.schemas.ReportSubmission.properties[field].description, field).toContain('Definitions: the contribution schema.');
    }
    expect(doc.components.schemas.ReportSubmission.properties.adId.description).toMatch(/^The merchant's id \(the spec calls it adId\)/);
    // The settled rules.
    expect(REPORTING_RULES.stage).toContain('not the last one that worked');
    expect(REPORTING_CASES.find((c) => c.id === 'stopAtPayment')!.rule).toContain('CHECKOUT is WORKS');
    expect(REPORTING_RULES.unknownFields).toMatch(/agentVersion and region out/);
    expect(REPORTING_RULES.unknownFields).toMatch(/humanIntervention too/);
  });
});

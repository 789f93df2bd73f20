// Third-party linters over the OpenAPI document the app serves: Redocly's `recommended` config
// and Spectral's `spectral:oas` ruleset must both give nothing, warnings included. Both run
// offline (no remote $refs: the document is self-contained).
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import spectralCore from '@stoplight/spectral-core';
import spectralParsers from '@stoplight/spectral-parsers';
import spectralRulesets from '@stoplight/spectral-rulesets';
import { createTestApp, type TestApp } from '../setup/app.js';

const { Spectral, Document } = spectralCore;
const { Json } = spectralParsers;
const { oas } = spectralRulesets;

describe('the served OpenAPI document, linted', () => {
  let t: TestApp;
  let source: string;
  beforeAll(async () => {
    t = await createTestApp();
    const res = await request(t.app).get('/api/v1/openapi.json').expect(200);
    source = JSON.stringify(res.body, null, 2);
  });
  afterAll(() => t.close());

  it('gives no Redocly `recommended` problem, warnings included', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer ?? ''}`)).toEqual([]);
  }, 30_000);

  it('gives no Spectral `spectral:oas` result, warnings and hints included', async () => {
    const spectral = new Spectral();
    // spectral:oas is the oas ruleset with its recommended rules on.
    spectral.setRuleset({ extends: [[oas, 'recommended']] } as unknown as Parameters<typeof spectral.setRuleset>[0]);
    const results = await spectral.run(new Document(source, Json, 'openapi.json'));
    expect(results.map((r) => `${r.severity} ${String(r.code)}: ${r.message} at ${r.path.join('.')}`)).toEqual([]);
  }, 30_000);

  it('has what the linters only partly check: descriptions, length limits, a documented 500', () => {
    const doc = JSON.parse(source) as {
      paths: Record<string, Record<string, { description?: string; parameters?: Array<{ in: string; name: string; schema: { maxLength?: number } }>; responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }> }>>;
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(operation.description, where).toBeTruthy();
        for (const p of operation.parameters ?? []) {
          if (p.in === 'path' || p.name === 'If-Match' || p.name === 'If-None-Match') expect(p.schema.maxLength, `${where} ${p.name}`).toBeGreaterThan(0);
        }
        expect(operation.responses['500']?.content?.['application/problem+json']?.schema.$ref, where).toBe('#/components/schemas/Problem');
      }
    }
    // Every schema that lists required members defines them.
    const walk = (value: unknown, at: string): void => {
      if (!value || typeof value !== 'object') return;
      const node = value as Record<string, unknown>;
      if (Array.isArray(node.required)) {
        const properties = (node.properties ?? {}) as Record<string, unknown>;
        for (const name of node.required as string[]) expect(properties, `${at}: required ${name}`).toHaveProperty(name);
      }
      for (const [key, member] of Object.entries(node)) if (key !== 'required') walk(member, `${at}/${key}`);
    };
    walk(JSON.parse(source), '#');
  });
});

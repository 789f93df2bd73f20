// The OpenAPI document lists every endpoint of the spec, and real responses match it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Validator } from '@seriousme/openapi-schema-validator';
import { createDemoApp } from '../setup/demo.js';
import { ResponseChecker } from '../setup/openapi-check.js';
import type { TestApp } from '../setup/app.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>>;
  components: { schemas: Record<string, object> };
};

describe('GET /api/v1/openapi.json', () => {
  let t: TestApp;
  let doc: Doc;
  let ajv: Ajv2020;
  beforeAll(async () => {
    t = await createDemoApp();
    doc = (await request(t.app).get('/api/v1/openapi.json').expect(200)).body;
    ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    ajv.addSchema({ $id: 'doc', components: doc.components });
  });
  afterAll(() => t.close());

  it('is OpenAPI 3.1 and lists every endpoint of the spec', () => {
    expect(doc.openapi).toBe('3.1.0');
    const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(operations).toEqual(
      expect.arrayContaining([
        'GET /categories',
        'GET /merchants',
        'GET /merchants/{slugOrId}',
        'GET /agents',
        'GET /agents/{slug}/merchants',
        'GET /reports',
        'POST /reports',
        'GET /automation/queue',
        'GET /automation/reports',
        'PUT /automation/reports/{id}',
      ]),
    );
  });

  function validate(path: string, method: string, status: string, body: unknown) {
    const response = doc.paths[path]![method]!.responses[status]!;
    const content = response.content!;
    const schema = (content['application/json'] ?? content['application/problem+json'])!.schema;
    // References inside the document point into the schema registered as "doc".
    const check = ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"doc#/')) as object);
    if (!check(body)) throw new Error(`${method} ${path} ${status}: ${ajv.errorsText(check.errors)}`);
  }

  it('describes real responses of every public endpoint', async () => {
    const get = async (url: string, status = 200) => (await request(t.app).get(url).expect(status)).body;
    const merchants = await get('/api/v1/merchants?sort=popular');
    validate('/merchants', 'get', '200', merchants);
    validate('/merchants', 'get', '200', await get('/api/v1/merchants?page=2'));
    const compact = await get('/api/v1/merchants?view=compact');
    validate('/merchants', 'get', '200', compact);
    expect(ajv.validate('doc#/components/schemas/CompactMerchantList', compact)).toBe(true);
    expect(ajv.validate('doc#/components/schemas/MerchantList', compact)).toBe(false);
    validate('/merchants/{slugOrId}', 'get', '200', await get(`/api/v1/merchants/${merchants.data[0].slug}`));
    validate('/merchants/{slugOrId}', 'get', '404', await get('/api/v1/merchants/nope', 404));
    validate('/merchants', 'get', '400', await get('/api/v1/merchants?sort=x', 400));
    validate('/categories', 'get', '200', await get('/api/v1/categories'));
    const agents = await get('/api/v1/agents');
    validate('/agents', 'get', '200', agents);
    validate('/agents/{slug}/merchants', 'get', '200', await get(`/api/v1/agents/${agents.data[0].slug}/merchants`));
    const reports = await get('/api/v1/reports');
    validate('/reports', 'get', '200', reports);
    validate('/reports/{id}', 'get', '200', await get(`/api/v1/reports/${reports.data[0].id}`));
  });

  it('would catch a response that does not match', () => {
    expect(() => validate('/agents', 'get', '200', { data: [{ slug: 1 }] })).toThrow(/must/);
  });

  it('is valid by a third-party OpenAPI 3.1 validator', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as unknown as Record<string, unknown>);
    expect(result.errors ?? [], JSON.stringify(result.errors)).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
  });

  it('describes every operation completely: security, a body schema for every status, ETag and 304 on public reads, a licence', () => {
    const full = doc as unknown as {
      info: { license?: { name: string; identifier?: string } };
      paths: Record<string, Record<string, {
        security?: unknown[];
        parameters?: Array<{ name: string; in: string }>;
        responses: Record<string, { content?: Record<string, { schema: object }>; headers?: Record<string, unknown> }>;
      }>>;
    };
    expect(full.info.license).toEqual({ name: 'CC BY 4.0', identifier: 'CC-BY-4.0' });
    for (const [path, methods] of Object.entries(full.paths)) {
      for (const [method, op] of Object.entries(methods)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect(op.security, where).toBeDefined();
        const isPublic = op.security!.length === 0;
        expect(isPublic, where).toBe(method === 'get' && !path.startsWith('/automation/') && !path.startsWith('/claims'));
        for (const [status, response] of Object.entries(op.responses)) {
          if (status === '304') continue;
          expect(response.content, `${where} ${status} has a body schema`).toBeDefined();
          expect(response.headers?.RateLimit, `${where} ${status} names RateLimit`).toBeDefined();
        }
        for (const status of ['400', '429', '503']) expect(op.responses[status], `${where} ${status}`).toBeDefined();
        if (isPublic) {
          expect(op.responses['304'], where).toBeDefined();
          expect(op.responses['200']!.headers?.ETag, where).toBeDefined();
          expect(op.parameters?.some((p) => p.name === 'If-None-Match' && p.in === 'header'), where).toBe(true);
        } else {
          expect(op.responses['401'], where).toBeDefined();
          expect(op.responses['403'], where).toBeDefined();
        }
      }
    }
    // The statuses the server really sends on the private side.
    const ops = full.paths;
    expect(Object.keys(ops['/automation/reports/{id}']!.put!.responses).sort()).toEqual(['200', '400', '401', '403', '404', '409', '413', '415', '428', '429', '500', '503']);
    expect(Object.keys(ops['/automation/reports/{id}']!.get!.responses).sort()).toEqual(['200', '400', '401', '403', '404', '429', '500', '503']);
    expect(Object.keys(ops['/reports']!.post!.responses).sort()).toEqual(['200', '201', '400', '401', '403', '409', '413', '415', '429', '500', '503']);
    // The dry run answers what the POST would, and so documents the same refusals.
    expect(Object.keys(ops['/reports/validate']!.post!.responses).sort()).toEqual(['200', '400', '401', '403', '409', '413', '415', '429', '500', '503']);
    expect(ops['/reports']!.post!.responses['201']!.headers).toHaveProperty('Location');
    expect(ops['/reports']!.post!.responses['201']!.headers).toHaveProperty('ETag');
  });

  it('checks every API answer of the suite against this document (test/setup/openapi-check.ts)', () => {
    const checker = new ResponseChecker(doc as unknown as ConstructorParameters<typeof ResponseChecker>[0]);
    const body = (value: unknown) => Buffer.from(JSON.stringify(value));
    expect(checker.problemWith('GET', '/api/v1/agents', 200, 'application/json', body({ data: [{ slug: 1 }] }))).toMatch(/must/);
    expect(checker.problemWith('GET', '/api/v1/agents', 418, 'application/json', body({}))).toMatch(/status not documented/);
    expect(checker.problemWith('GET', '/api/v1/agents', 200, 'text/html', body({}))).toMatch(/media type/);
    expect(checker.problemWith('GET', '/api/v1/agents', 304, undefined, Buffer.alloc(0))).toBeUndefined();
    expect(checker.problemWith('DELETE', '/api/v1/agents', 405, 'application/problem+json', body({}))).toBeUndefined();
  });
});

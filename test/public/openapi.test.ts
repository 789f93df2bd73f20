// The OpenAPI document lists every endpoint of the spec, and real responses match it.
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import request from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDemoApp } from '../setup/demo.js';
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
});

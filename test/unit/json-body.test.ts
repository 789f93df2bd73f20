// The app's JSON bytes (web/json-body.ts) are JSON.stringify's, whatever the value.
import express from 'express';
import fc from 'fast-check';
import request from 'supertest';
import { describe, expect, it } from 'vitest';
import { jsonBytes, sendJson } from '../../src/web/json-body.js';
import { RawJson } from '../../src/raw-json.js';

/** What Express's own res.json would have sent: JSON.stringify's text as UTF-8. */
const expected = (value: unknown): Buffer | undefined => {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : Buffer.from(text, 'utf8');
};

const sameAsStringify = (value: unknown) => {
  const got = jsonBytes(value);
  const want = expected(value);
  if (want === undefined) expect(got).toBeUndefined();
  else expect(got?.equals(want), `${got?.toString('utf8')} != ${want.toString('utf8')}`).toBe(true);
};

describe('jsonBytes', () => {
  it('writes the bytes JSON.stringify would, for any value', () => {
    fc.assert(
      fc.property(fc.anything({ withDate: true, withBoxedValues: true, withNullPrototype: true, withSparseArray: true, withMap: true, withSet: true, withTypedArray: true }), sameAsStringify),
      { numRuns: 2_000 },
    );
  });

  it('writes any text the same: two-byte and astral characters, lone surrogates, in pieces or one', () => {
    const text = fc.string({ unit: 'binary', maxLength: 40 });
    fc.assert(
      fc.property(fc.array(fc.record({ name: text, items: fc.array(text, { maxLength: 4 }) }), { maxLength: 6 }), text, (data, note) => {
        sameAsStringify({ data, note });
        sameAsStringify({ data: data.map((item) => new RawJson(JSON.stringify(item))), note });
      }),
      { numRuns: 1_000 },
    );
    // Three bytes for each UTF-16 unit, the most any text takes.
    sameAsStringify({ data: ['✓'.repeat(100)], note: '◐' });
  });

  it('writes a list envelope the same, with what JSON leaves out or writes as null', () => {
    const list = {
      data: [{ id: 'a', verdict: { symbol: '✓', sentence: 'Gets through checkout' }, at: new Date(0), skipped: undefined }, undefined, () => 1, Symbol('s'), [1, '◐']],
      methodology: 'https://example.test/how-it-works',
      missing: undefined,
      fn: () => 1,
      when: new Date(86_400_000),
      nested: { list: ['✕', null], toJSON: undefined },
      total: 2,
    };
    sameAsStringify(list);
    sameAsStringify(list.data);
    sameAsStringify({ toJSON: () => ({ replaced: [1, 2] }) });
    sameAsStringify({ data: Object.assign([1, 2], { toJSON: () => 'array with toJSON' }) });
    sameAsStringify({ lone: '\ud800 and \udfff', quote: '"\\\n', emoji: '🛒' });
    // A toJSON is given its member's key or its item's index, as inside JSON.stringify.
    const keyed = { toJSON: (key: string) => `written as ${key}` };
    sameAsStringify({ data: [keyed, keyed], member: keyed, total: 2 });
    sameAsStringify([keyed, { toJSON: () => undefined }, { toJSON: () => ({ toJSON: () => 'not called again' }) }]);
    sameAsStringify({ left: { toJSON: () => undefined }, fn: Object.assign(() => 1, { toJSON: (key: string) => key }) });
    for (const scalar of [undefined, null, 0, -0, NaN, Infinity, 'text', true, () => 1, Symbol('s')]) sameAsStringify(scalar);
  });

  it('sends a value already written as JSON as it is, where JSON.stringify writes the same', () => {
    fc.assert(
      fc.property(fc.array(fc.jsonValue(), { maxLength: 5 }), fc.jsonValue(), (items, member) => {
        const raw = items.map((item) => new RawJson(JSON.stringify(item)));
        const envelope = { data: raw, extra: new RawJson(JSON.stringify(member)), total: raw.length };
        const expected = JSON.stringify({ data: items, extra: member, total: raw.length });
        expect(JSON.stringify(envelope)).toBe(expected);
        expect(jsonBytes(envelope)?.toString('utf8')).toBe(expected);
        expect(jsonBytes(raw)?.toString('utf8')).toBe(JSON.stringify(items));
      }),
      { numRuns: 300 },
    );
    // Its text is not parsed on the way out.
    const text = '{"b": 1, "a": [2]}';
    expect(jsonBytes({ data: [new RawJson(text)] })?.toString('utf8')).toBe(`{"data":[${text}]}`);
  });

  it('refuses what JSON.stringify refuses', () => {
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(() => jsonBytes({ data: [cyclic] })).toThrow(TypeError);
    expect(() => jsonBytes({ n: 1n })).toThrow(TypeError);
  });
});

describe('res.json', () => {
  const app = express();
  app.set('etag', false);
  app.response.json = sendJson;
  app.get('/list', (_req, res) => void res.json({ data: [{ symbol: '◐' }], total: 1 }));
  app.get('/problem', (_req, res) => void res.status(400).type('application/problem+json').json({ title: 'Bad' }));
  app.get('/nothing', (_req, res) => void res.json(undefined));

  it('answers JSON with the Content-Type and length Express gives it', async () => {
    const list = await request(app).get('/list');
    expect(list.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(list.text).toBe('{"data":[{"symbol":"◐"}],"total":1}');
    expect(Number(list.headers['content-length'])).toBe(Buffer.byteLength(list.text));
    const problem = await request(app).get('/problem');
    expect(problem.status).toBe(400);
    expect(problem.headers['content-type']).toBe('application/problem+json; charset=utf-8');
    expect(problem.body).toEqual({ title: 'Bad' });
    const nothing = await request(app).get('/nothing');
    expect(nothing.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(nothing.text).toBe('');
  });
});

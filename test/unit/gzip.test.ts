// The cache's gzip (web/gzip.ts): a large answer deflated in slices is still one gzip member that
// any client inflates to the answer, checksum and length checked, at about zlib.gzip's size.
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gzip, MIN_SLICE, SLICED_LEVEL, slicesFor } from '../../src/web/gzip.js';

/** A list page's kind of text: JSON objects that repeat their keys and much of their values. */
function listLike(bytes: number): Buffer {
  const items: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const item = JSON.stringify({
      id: `0190${(i * 7919).toString(16).padStart(8, '0')}-7000-8000-9000-${(i * 104729).toString(16).padStart(12, '0')}`,
      name: `Shop ${i} ${'éü中'.charAt(i % 3)}`,
      agents: [{ agent: { slug: `agent-${i % 9}` }, status: ['supported', 'partial', 'blocked'][i % 3], confidence: (i % 997) / 997 }],
    });
    items.push(item);
    length += item.length + 1;
  }
  return Buffer.from(`[${items.join(',')}]`);
}

describe('gzip', () => {
  it('deflates an answer of a few slices in that many slices, and it inflates to the answer', async () => {
    const body = listLike(620 * 1024);
    expect(slicesFor(body.length)).toBeGreaterThan(1);
    const zipped = await gzip(body);
    // gunzip checks the trailer's CRC-32 and length against what it inflated.
    expect(zlib.gunzipSync(zipped).equals(body)).toBe(true);
    // Primed slices compress as the whole does at their level, give or take a few bytes a slice.
    expect(Math.abs(zipped.length - zlib.gzipSync(body, { level: SLICED_LEVEL }).length)).toBeLessThan(64 * slicesFor(body.length));
  });

  it('inflates to the answer for any bytes, below and above the size that slices them', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 5 * MIN_SLICE }),
        fc.boolean(),
        async (length, random) => {
          const body = random ? randomBytes(length) : listLike(length).subarray(0, length);
          expect(zlib.gunzipSync(await gzip(body)).equals(body)).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('is one gzip member with the header zlib writes', async () => {
    const body = listLike(3 * MIN_SLICE);
    const zipped = await gzip(body);
    expect(zipped.subarray(0, 10).equals(zlib.gzipSync(body).subarray(0, 10))).toBe(true);
    expect(zipped.readUInt32LE(zipped.length - 8)).toBe(zlib.crc32(body));
    expect(zipped.readUInt32LE(zipped.length - 4)).toBe(body.length);
  });
});

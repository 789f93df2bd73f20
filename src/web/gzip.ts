// gzip for the answers the response cache files. A large answer is deflated in slices side by
// side on libuv's threadpool, as pigz does: every slice after the first is primed with the 32 KB
// before it (its dictionary, so it compresses as if it had read them), every slice but the last
// ends on a sync flush (a byte boundary, no final-block bit), and the raw deflate streams, one
// after another, are one deflate stream. The gzip header and trailer (CRC-32 of the whole answer,
// its length mod 2^32) wrap it, and any client inflates it as it inflates zlib.gzip's output, to
// within a few bytes of its size. A 620 KB list page took 7.5 ms to gzip in one piece, on the
// request's way (docs/decisions.md, issue 38). Such a large answer is deflated at level 3, the
// last of deflate's fast levels: half the time of the default level 6 for about a third more
// bytes (a 720 KB list page: 4.8 ms and 67.6 KB against 10.3 ms and 49.8 KB).
import { availableParallelism } from 'node:os';
import { promisify } from 'node:util';
import zlib from 'node:zlib';

const gzipWhole = promisify(zlib.gzip);
const deflateRaw = promisify(zlib.deflateRaw) as (body: Buffer, options: zlib.ZlibOptions) => Promise<Buffer>;

/** What deflate can refer back to, and so what primes each slice. */
const WINDOW = 32 * 1024;
/** The smallest slice worth its own trip to the threadpool. */
export const MIN_SLICE = 96 * 1024;
/** At most this many slices: libuv's threadpool has four threads, and other work needs them too. */
const MAX_SLICES = Math.max(1, Math.min(4, availableParallelism()));

// RFC 1952: magic, deflate, no flags, no time, no extra flags, Unix (as zlib.gzip writes it).
const HEADER = Buffer.from([0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0x03]);

/** The level of an answer deflated in slices (the default level, 6, for smaller ones). */
export const SLICED_LEVEL = 3;

/** How many slices an answer of `length` bytes is deflated in. */
export const slicesFor = (length: number): number => Math.max(1, Math.min(MAX_SLICES, Math.floor(length / MIN_SLICE)));

/** The gzip encoding of `body`: at zlib's default level, or SLICED_LEVEL when it is sliced. */
export async function gzip(body: Buffer): Promise<Buffer> {
  const slices = slicesFor(body.length);
  if (slices === 1) return gzipWhole(body);
  const size = Math.ceil(body.length / slices);
  const parts: Array<Promise<Buffer>> = [];
  for (let start = 0; start < body.length; start += size) {
    const end = Math.min(body.length, start + size);
    const last = end === body.length;
    parts.push(
      deflateRaw(body.subarray(start, end), {
        level: SLICED_LEVEL,
        ...(start > 0 ? { dictionary: body.subarray(Math.max(0, start - WINDOW), start) } : {}),
        finishFlush: last ? zlib.constants.Z_FINISH : zlib.constants.Z_SYNC_FLUSH,
      }),
    );
  }
  // The checksum is the main thread's while the slices deflate.
  const trailer = Buffer.allocUnsafe(8);
  trailer.writeUInt32LE(zlib.crc32(body), 0);
  trailer.writeUInt32LE(body.length % 2 ** 32, 4);
  return Buffer.concat([HEADER, ...(await Promise.all(parts)), trailer]);
}

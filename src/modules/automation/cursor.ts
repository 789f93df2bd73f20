// Opaque, tamper-evident pagination cursors bound to the filters they were made with.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { invalidParameter } from '../../errors.js';

export interface CursorCodec {
  encode(position: string, filters: Record<string, unknown>): string;
  /** The position, or a 400 when the cursor was altered or made with other filters. */
  decode(cursor: string, filters: Record<string, unknown>): string;
}

const badCursor = (detail: string) => invalidParameter('after', detail);

export function cursorCodec(secret: string, purpose: string): CursorCodec {
  const sign = (payload: string) => createHmac('sha256', secret).update(`${purpose}\n${payload}`).digest('base64url').slice(0, 22);
  const scope = (filters: Record<string, unknown>) =>
    JSON.stringify(Object.keys(filters).sort().map((key) => [key, filters[key] ?? null]));
  return {
    encode(position, filters) {
      const payload = Buffer.from(JSON.stringify({ p: position, f: scope(filters) })).toString('base64url');
      return `${payload}.${sign(payload)}`;
    },
    decode(cursor, filters) {
      const [payload, mac] = cursor.split('.');
      if (!payload || !mac) throw badCursor('is not a cursor from this API');
      const expected = Buffer.from(sign(payload));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw badCursor('is not a cursor from this API');
      const { p, f } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { p: string; f: string };
      if (f !== scope(filters)) throw badCursor('was made with other filters: repeat the same filters on every page');
      return p;
    },
  };
}

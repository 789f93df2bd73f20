// Every JSON answer's bytes (installed as the app's `res.json`). Express stringifies the whole
// value, then turns the string into bytes. For a large value V8 (Node 20) returns that string as
// a rope of 16 KB parts, two bytes a character once a verdict symbol (✓ ◐ ✕) is in it; making
// bytes of it first copies it into one flat string. A list page of 24 merchants with every
// agent's summary (about 850 KB) spent 13-14 ms there; stringified and encoded item by item,
// with the pieces joined as bytes, the same page takes about 4 ms. The bytes are the same as
// JSON.stringify's (test/unit/json-body.test.ts); the app sets no `json replacer`, `json
// spaces` or `json escape`, which this does not apply.
import type { Response } from 'express';
import { RawJson } from '../raw-json.js';

const UTF8 = new TextEncoder();

/** A value JSON.stringify would first replace by what its toJSON returns. */
const hasToJson = (value: unknown): boolean =>
  ((typeof value === 'object' && value !== null) || typeof value === 'function' || typeof value === 'bigint') &&
  typeof (value as { toJSON?: unknown }).toJSON === 'function';

/** A plain object or an array without toJSON: JSON.stringify writes it member by member. */
const splittable = (value: unknown): value is object => {
  if (typeof value !== 'object' || value === null || hasToJson(value)) return false;
  if (Array.isArray(value)) return true;
  const prototype: unknown = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

/**
 * JSON.stringify(value) as UTF-8 bytes, or undefined where JSON.stringify gives undefined. A
 * plain object's members and an array's items (at the top, and in the top object's arrays, such
 * as a list's `data`) are stringified one by one.
 */
export function jsonBytes(value: unknown): Buffer | undefined {
  if (!splittable(value)) {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : bytesOf([text]);
  }
  if (Array.isArray(value)) return bytesOf(arrayPieces(value));
  const pieces: string[] = ['{'];
  for (const [key, member] of Object.entries(value)) {
    const parts = Array.isArray(member) && splittable(member) ? arrayPieces(member) : [pieceOf(key, member)];
    // Members JSON.stringify leaves out (undefined, functions, symbols).
    if (parts[0] === undefined) continue;
    pieces.push(pieces.length === 1 ? `${JSON.stringify(key)}:` : `,${JSON.stringify(key)}:`, ...(parts as string[]));
  }
  pieces.push('}');
  return bytesOf(pieces);
}

/**
 * One member or item as JSON.stringify writes it inside its holder (undefined when it is left
 * out): a toJSON is given the member's key or the item's index, so it is written in a holder.
 */
function pieceOf(key: string, value: unknown): string | undefined {
  if (value instanceof RawJson) return value.json;
  if (!hasToJson(value)) return JSON.stringify(value);
  const holder = JSON.stringify({ [key]: value });
  return holder === '{}' ? undefined : holder.slice(JSON.stringify(key).length + 2, -1);
}

/** An array as JSON.stringify writes it, in pieces: an item it cannot write is null. */
function arrayPieces(items: readonly unknown[]): string[] {
  const pieces: string[] = ['['];
  for (let i = 0; i < items.length; i += 1) {
    if (i > 0) pieces.push(',');
    pieces.push(pieceOf(String(i), items[i]) ?? 'null');
  }
  pieces.push(']');
  return pieces;
}

function bytesOf(pieces: readonly string[]): Buffer {
  const parts = pieces.map((piece) => UTF8.encode(piece));
  return Buffer.concat(parts);
}

/** The app's `res.json`: Express's (the Content-Type it sets, charset included), with jsonBytes. */
export function sendJson(this: Response, body: unknown): Response {
  const type = this.get('Content-Type') ?? 'application/json';
  this.setHeader('Content-Type', /;\s*charset=/i.test(type) ? type : `${type}; charset=utf-8`);
  return this.send(jsonBytes(body));
}

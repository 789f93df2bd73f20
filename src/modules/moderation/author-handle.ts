// How moderators tell authors apart without reading their e-mail addresses: a short, stable,
// opaque handle derived from the account id (the first 10 hex digits of its SHA-256). The
// queue and the report page show it; only the account page (/admin/accounts/:id) shows the
// address. The database computes the same digest to filter the queue by a handle
// (queue.repository.ts accountsWithHandle), so the two must stay the same function.
import { createHash } from 'node:crypto';

export const AUTHOR_HANDLE_LENGTH = 10;
export const AUTHOR_HANDLE_PATTERN = /^[0-9a-f]{10}$/;

/** The handle of an account: sha256(lower-case id as text), its first 10 hex digits. */
export function authorHandle(accountId: string): string {
  return createHash('sha256').update(accountId.toLowerCase()).digest('hex').slice(0, AUTHOR_HANDLE_LENGTH);
}

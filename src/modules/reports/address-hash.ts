// The submitter's address, as moderators' signals need it (issue 37): never the address itself,
// only a keyed hash of its limit key (an IPv4 address, or an IPv6 /64, limits/address-key.ts),
// so two reports can be seen to come from one address without the address being stored. The key
// is derived from SESSION_SECRET with a label of its own; without the secret the hash cannot be
// recomputed from a guessed address. Stored on the report (reports.address_hash), read only by
// the moderators' signals, and cleared by the upkeep after ADDRESS_HASH_DAYS.
import { createHmac } from 'node:crypto';
import { addressKey } from '../limits/address-key.js';

/** Days a report keeps its address hash (the signal looks one day around a report). */
export const ADDRESS_HASH_DAYS = 30;

export function reportAddressHash(secret: string | undefined, address: string | undefined): string | null {
  if (!secret || !address) return null;
  const key = createHmac('sha256', secret).update('report-address-hash:v1').digest();
  return createHmac('sha256', key).update(addressKey(address)).digest('hex').slice(0, 32);
}

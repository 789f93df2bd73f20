// Fetchers for claim checks in tests that are about what a claim does, not how it is proved:
// one that finds every claim's DNS proof, and one that finds nothing (the site is gone).
import type { PrismaClient } from '../../src/db/client.js';
import { proofValue } from '../../src/modules/claims/proof.js';
import type { Fetcher } from '../../src/outbound/fetcher.js';

/** Every claim's proof is found (its DNS TXT record): a check of any claim verifies it. */
export const provingFetcher = (prisma: () => PrismaClient): Fetcher => ({
  fetchText: async () => ({ ok: false, reason: 'not-found', detail: 'Not used.' }),
  resolveTxt: async () => ({ ok: true, records: (await prisma().claim.findMany({ select: { token: true } })).map((c) => proofValue(c.token)) }),
});

/** Nothing is found: a re-check fails. */
export const FAILING_FETCHER: Fetcher = {
  fetchText: async () => ({ ok: false, reason: 'not-found', detail: 'Gone.' }),
  resolveTxt: async () => ({ ok: false, reason: 'not-found', detail: 'Gone.' }),
};

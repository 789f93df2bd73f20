// The rules of claims, said once for every text that tells them (OpenAPI, the agent guide,
// /how-it-works, the claim pages) and used by the service that applies them.
import { DEFAULT_MAX_BYTES, DEFAULT_TIMEOUT_MS } from '../../outbound/fetcher.js';
import { DNS_LABEL, PROOF_NAME, WELL_KNOWN_PATH } from './proof.js';

/** Days between scheduled re-checks of a verified claim. */
export const RECHECK_DAYS = 30;
/** Days a verified claim whose re-check failed stays verified while it is checked again daily. */
export const GRACE_DAYS = 7;
/** Days between re-checks during the grace period. */
export const GRACE_RECHECK_DAYS = 1;

export const CLAIM_RULES = {
  methods:
    `Three ways to prove control of the website: a DNS TXT record at ${DNS_LABEL}.<host> reading ${PROOF_NAME}=<token>, ` +
    `a file at https://<host>${WELL_KNOWN_PATH} with that line, or a <meta name="${PROOF_NAME}" content="<token>"> tag in the <head> of the website's own page.`,
  sharedHost:
    'A website that is a path on a host others share (www.example.net/shops/<name>) can only be proved by the meta tag on its own page: the record and the file would prove the whole host, so they are refused for it.',
  recheck:
    `A verified claim is checked again every ${RECHECK_DAYS} days with the method that proved it. A failed re-check starts a ${GRACE_DAYS}-day grace period (checked daily, the claim still verified); at its end the claim lapses and the owner's statement is no longer shown until the claim is proved again. Moderators can revoke a claim, and reinstate it.`,
  fetcher: `Checks fetch only http(s) on ports 80 and 443, never a private, loopback or link-local address, follow no redirect to another host, and give up after ${DEFAULT_TIMEOUT_MS / 1000} s or ${DEFAULT_MAX_BYTES / 1024} KB.`,
} as const;

// The profile agent setup page: issue, revoke and replace agent keys (spec 5 rule 1).
// A new key is shown exactly once, on the page view right after the POST that made it. Revoke
// and Replace ask first on the page (a disclosure holding the button that acts), and the page
// after the redirect says what happened. One function per use case.
// Routes: http/routers/pages.ts.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { formatTime } from '../../dates.js';
import { statusOf } from '../../web/problem.js';
import { listActiveAgents } from '../catalog/catalog.repository.js';
import { findActiveAgentById, findOwnKey } from './keys.repository.js';
import { redirectWhenSaved, setPageFlash, takePageFlash } from '../../forms.js';
import { issueKey, KEY_LIFETIME_DAYS, listKeys, replaceKey, revokeKey, type IssuedKey } from './keys.service.js';
import { UUID_PATTERN } from '../../text.js';
import { notFound, Refusal } from '../../errors.js';
import { cacheControl } from '../../web/cache-control.js';
import { PAGE_PATHS } from '../../paths.js';

export interface KeysPageDeps {
  prisma: PrismaClient;
  clock: Clock;
  baseUrl: string;
}

export const KEYS_PAGE_PATH = PAGE_PATHS.keys;

// The key to reveal travels sealed: the session (stored in PostgreSQL) holds it encrypted
// with a one-time secret that only the browser holds, in a short-lived cookie scoped to this
// page. So the raw key is never written to the database, even between the POST and the GET.
const REVEAL_COOKIE = 'acd.reveal';
const REVEAL_MAX_AGE_MS = 10 * 60_000;

function seal(plaintext: string): { sealed: string; secret: string } {
  const secret = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', secret, iv);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { sealed: Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url'), secret: secret.toString('base64url') };
}

function unseal(sealed: string, secret: string): string | null {
  try {
    const data = Buffer.from(sealed, 'base64url');
    const key = Buffer.from(secret, 'base64url');
    if (key.length !== 32 || data.length < 29) return null;
    const decipher = createDecipheriv('aes-256-gcm', key, data.subarray(0, 12));
    decipher.setAuthTag(data.subarray(12, 28));
    return Buffer.concat([decipher.update(data.subarray(28)), decipher.final()]).toString('utf8');
  } catch {
    return null;
  }
}

function cookieValue(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq !== -1 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

const SUSPENDED_MESSAGE = 'Your account is suspended, so you cannot issue or replace agent keys.';

/** The keys page, with the message and the key to show (a new key is shown once). */
async function renderKeys(
  deps: KeysPageDeps,
  res: Response,
  status: number,
  view: {
    error?: string | null;
    /** The field the error is about (the summary links to it). */
    errorField?: string;
    selectedAgentId?: string;
    reveal?: { key: string | null; agentName: string } | null;
    flash?: string | null;
  } = {},
): Promise<void> {
  const account = res.locals.account!;
  const now = deps.clock.now();
  const [agents, keys] = await Promise.all([listActiveAgents(deps.prisma), listKeys(deps.prisma, account.id, now)]);
  // "Your agents": the agents this account has keys for (newest key first), before every other agent.
  const yours = new Map<string, { id: string; slug: string; name: string; active: boolean; activeKeys: number; keys: number }>();
  for (const key of keys) {
    const entry = yours.get(key.agent.id) ?? { ...key.agent, activeKeys: 0, keys: 0 };
    entry.keys += 1;
    if (key.state === 'active') entry.activeKeys += 1;
    yours.set(key.agent.id, entry);
  }
  // The page may hold a key: never cached anywhere.
  cacheControl(res, 'no-store');
  res.status(status).render('pages/profile-agents', {
    title: 'Keys for your agents',
    hasErrors: Boolean(view.error),
    summary: view.error ? [{ text: view.error, ...(view.errorField ? { href: `#${view.errorField}` } : {}) }] : [],
    pageFlash: view.flash ?? null,
    agents,
    yourAgents: [...yours.values()],
    yourAgentIds: new Set(yours.keys()),
    otherAgents: agents.filter((a) => !yours.has(a.id)),
    keys,
    baseUrl: deps.baseUrl.replace(/\/+$/, ''),
    suspended: account.suspended,
    error: view.error ?? null,
    selectedAgentId: view.selectedAgentId ?? '',
    reveal: view.reveal ?? null,
    lifetimeDays: KEY_LIFETIME_DAYS,
    formatTime,
  });
}

/** The new key, sealed in the session, for the page view after the redirect to show once. */
async function revealOnNextView(deps: KeysPageDeps, req: Request, res: Response, issued: IssuedKey): Promise<void> {
  const agent = await findActiveAgentById(deps.prisma, issued.record.agentId);
  const { sealed, secret } = seal(issued.key);
  // `key` holds the sealed key, never the key itself.
  req.session.revealKey = { key: sealed, agentName: agent?.name ?? 'your agent' };
  res.cookie(REVEAL_COOKIE, secret, {
    httpOnly: true,
    sameSite: 'strict',
    secure: new URL(deps.baseUrl).protocol === 'https:',
    path: KEYS_PAGE_PATH,
    maxAge: REVEAL_MAX_AGE_MS,
  });
  await redirectWhenSaved(req, res, KEYS_PAGE_PATH);
}

/** Problems that belong on the page itself (a bad choice, a suspension), not an error page. */
const isPageProblem = (error: unknown): error is Refusal =>
  error instanceof Refusal && (['invalid', 'forbidden', 'conflict'] as const).some((kind) => kind === error.kind);

/** GET /profile/agents: the account's keys and the agents, and a new key once after it is made. */
export function keysPage(deps: KeysPageDeps): RequestHandler {
  return async (req, res) => {
    let reveal: { key: string | null; agentName: string } | null = null;
    const pending = req.session.revealKey;
    if (pending) {
      // Shown once: gone from the session (and the secret from the browser) from now on.
      delete req.session.revealKey;
      const secret = cookieValue(req, REVEAL_COOKIE);
      reveal = { key: secret ? unseal(pending.key, secret) : null, agentName: pending.agentName };
    }
    if (cookieValue(req, REVEAL_COOKIE) !== undefined) res.clearCookie(REVEAL_COOKIE, { path: KEYS_PAGE_PATH });
    await renderKeys(deps, res, 200, { reveal, flash: takePageFlash(req.session) });
  };
}

/** POST /profile/agents/keys: issue a key for the chosen agent. */
export function keyIssuePost(deps: KeysPageDeps): RequestHandler {
  return async (req, res) => {
    const account = res.locals.account!;
    const agentId = (req.body as { agentId?: unknown } | undefined)?.agentId;
    const selectedAgentId = typeof agentId === 'string' ? agentId : '';
    if (account.suspended) {
      await renderKeys(deps, res, 403, { error: SUSPENDED_MESSAGE });
      return;
    }
    let issued: IssuedKey;
    try {
      issued = await issueKey(deps.prisma, { accountId: account.id, agentId: selectedAgentId }, deps.clock.now());
    } catch (error) {
      if (!isPageProblem(error)) throw error;
      await renderKeys(deps, res, statusOf(error.kind), {
        error: error.kind === 'invalid' ? 'Choose one of the listed agents.' : (error.init.detail ?? error.init.title),
        ...(error.kind === 'invalid' ? { errorField: 'agentId' } : {}),
        selectedAgentId,
      });
      return;
    }
    await revealOnNextView(deps, req, res, issued);
  };
}

/** POST /profile/agents/keys/:id/revoke: revoke one of the account's keys. */
export function keyRevokePost(deps: KeysPageDeps): RequestHandler {
  return async (req, res) => {
    const account = res.locals.account!;
    const keyId = String(req.params.id).toLowerCase();
    const before = UUID_PATTERN.test(keyId) ? await findOwnKey(deps.prisma, account.id, keyId) : null;
    const found = before !== null && (await revokeKey(deps.prisma, { accountId: account.id, keyId }, deps.clock.now()));
    if (!found) throw notFound('Your account has no such key.', 'Key not found');
    setPageFlash(
      req.session,
      before.revokedAt
        ? `Key ${before.displayPrefix}… was already revoked: nothing changed.`
        : `Key ${before.displayPrefix}… is revoked. Requests that use it are refused from now on.`,
    );
    await redirectWhenSaved(req, res, KEYS_PAGE_PATH);
  };
}

/** POST /profile/agents/keys/:id/replace: a new key for the same agent, the old one revoked. */
export function keyReplacePost(deps: KeysPageDeps): RequestHandler {
  return async (req, res) => {
    const account = res.locals.account!;
    if (account.suspended) {
      await renderKeys(deps, res, 403, { error: SUSPENDED_MESSAGE });
      return;
    }
    let issued: IssuedKey;
    const keyId = String(req.params.id).toLowerCase();
    try {
      if (!UUID_PATTERN.test(keyId)) throw notFound('Your account has no such key.', 'Key not found');
      issued = await replaceKey(deps.prisma, { accountId: account.id, keyId }, deps.clock.now());
    } catch (error) {
      if (error instanceof Refusal && error.kind === 'not-found') {
        throw notFound('Your account has no such key.', 'Key not found');
      }
      if (!isPageProblem(error)) throw error;
      await renderKeys(deps, res, statusOf(error.kind), { error: error.init.detail ?? error.init.title });
      return;
    }
    const old = await findOwnKey(deps.prisma, account.id, keyId);
    setPageFlash(req.session, `Key ${old?.displayPrefix ?? ''}… is replaced: it no longer works. Your new key is below.`);
    await revealOnNextView(deps, req, res, issued);
  };
}

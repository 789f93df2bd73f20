// The new-report form's draft (its pending screenshots) in the person's session: every change
// to it runs under the account's lock, on the session as stored now (pending-screenshots.ts
// says why), and the drafts of sessions that ended are swept now and then.
import type { Request } from 'express';
import type { Clock } from '../../clock.js';
import type { PrismaClient } from '../../db/client.js';
import { Refusal } from '../../errors.js';
import { DraftLockTimeout, sweepPendingNowAndThen, withDraftLock } from './pending-screenshots.js';

/** The session as stored now (another request of this person may have changed it since this one began); false when it ended meanwhile. */
const reloadSession = (req: Request) =>
  new Promise<boolean>((resolve, reject) =>
    req.session.reload((error?: unknown) => {
      if (!error) resolve(true);
      else if (error instanceof Error && error.message === 'failed to load session') resolve(false);
      else reject(error);
    }),
  );

export const saveSession = (req: Request) => new Promise<void>((resolve, reject) => req.session.save((error) => (error ? reject(error) : resolve())));

/**
 * Runs `work` as the only change to the account's drafts, on the session as stored now; `work`
 * saves the session before it returns, so the next request of this person reads what it left
 * (express-session then has nothing left to save: no later save of a stale draft). Null when
 * the session ended meanwhile.
 */
export async function withDraft<T>(dataDir: string, req: Request, accountId: string, work: () => Promise<T>): Promise<T | null> {
  try {
    return await withDraftLock(dataDir, accountId, async () => ((await reloadSession(req)) ? work() : null));
  } catch (error) {
    if (!(error instanceof DraftLockTimeout)) throw error;
    throw new Refusal({
      kind: 'unavailable',
      code: 'service-unavailable',
      title: 'Try again in a moment',
      detail: 'Another form of yours is still being sent. Go back, and send this one again in a moment.',
      retryAfterSeconds: 5,
    });
  }
}

/** Drafts of sessions that ended, now and then (the sweep is cheap, and bounded to once a minute). */
export const sweepNowAndThen = (deps: { prisma: PrismaClient; dataDir: string; clock: Clock }, req: Request) =>
  sweepPendingNowAndThen(deps.prisma, deps.dataDir, deps.clock.now()).catch((error: unknown) =>
    req.log?.warn({ err: error }, 'sweeping pending screenshots failed'),
  );

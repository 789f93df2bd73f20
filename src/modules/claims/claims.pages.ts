// The owners' pages (issue 34): "Is this your shop?" starts a claim; the claim's page says
// exactly what to publish for each method, with copy buttons and a Check button; the owner's
// page lists their claims and what each allows: the statement, replies under reports, and a
// correction of the merchant's details. One function per use case. Routes: http/routers/pages.ts.
import type { Request, RequestHandler, Response } from 'express';
import type { PrismaClient } from '../../db/client.js';
import type { Clock } from '../../clock.js';
import type { Fetcher } from '../../outbound/fetcher.js';
import { formatDate, formatTime } from '../../dates.js';
import type { z } from 'zod';
import { fieldErrorsOf, formInput, redirectWhenSaved, setPageFlash, takePageFlash, type FieldErrors } from '../../forms.js';
import { Refusal } from '../../errors.js';
import { OUTCOME_LABELS, OUTCOMES, TASK_LABELS, TASKS } from '../aggregation/constants.js';
import { correctionBody, ownerStatementBody, replyBody, vendorStatementBody } from './claims.schemas.js';
import { checkClaim, claimView, ownClaim, ownClaims, startClaim } from './claims.service.js';
import { GRACE_DAYS, RECHECK_DAYS } from './rules.js';
import { OWNER_PAGE_PATH } from './paths.js';
import { CHECK_REASON_WORDS, METHOD_NAMES, METHOD_SHORT } from './proof.js';
import { replyToReport, requestCorrection, REPLY_MAX_LENGTH, writeOwnerStatement, writeVendorStatement } from './owners.service.js';
import { VERIFIED_STATUSES } from './claims.repository.js';
import { cacheControl } from '../../web/cache-control.js';

export interface ClaimPagesDeps {
  prisma: PrismaClient;
  clock: Clock;
  baseUrl: string;
  fetcher: Fetcher;
}

export { OWNER_PAGE_PATH };

const STATUS_WORDS = {
  pending: 'Waiting for proof',
  verified: 'Verified',
  grace: 'Verified, but the last re-check failed',
  lapsed: 'Lapsed',
  revoked: 'Revoked by a moderator',
} as const;

const helpers = { formatDate, formatTime, STATUS_WORDS, METHOD_NAMES, METHOD_SHORT, CHECK_REASON_WORDS, TASKS, TASK_LABELS, OUTCOMES, OUTCOME_LABELS, REPLY_MAX_LENGTH, RECHECK_DAYS, GRACE_DAYS };

const accountOf = (res: Response) => res.locals.account!;
const noStore = (res: Response) => cacheControl(res, 'no-store');

/** Refusals a person can act on become a message on the page they came from. */
async function withRefusalFlash(req: Request, res: Response, back: string, act: () => Promise<string>): Promise<void> {
  let message: string;
  try {
    message = await act();
  } catch (error) {
    if (!(error instanceof Refusal) || error.kind === 'not-found') throw error;
    message = error.message;
  }
  setPageFlash(req.session, message);
  await redirectWhenSaved(req, res, back);
}

/** GET /claims/new?merchant=<slug> (or agent=): what a claim is, and the button that starts one. */
export function claimStartPage(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    noStore(res);
    const merchant = typeof req.query.merchant === 'string' ? req.query.merchant : undefined;
    const agent = merchant === undefined && typeof req.query.agent === 'string' ? req.query.agent : undefined;
    const existing = (await ownClaims(deps, accountOf(res).id)).find(({ subject }) => subject && subject.slug === (merchant ?? agent) && (merchant ? subject.side === 'MERCHANT' : subject.side === 'AGENT'));
    if (existing) return res.redirect(303, `/claims/${existing.claim.id}`);
    const subject = merchant
      ? await deps.prisma.merchant.findFirst({ where: { slug: merchant, isPublic: true }, select: { name: true, slug: true, website: true } })
      : agent
        ? await deps.prisma.agent.findFirst({ where: { slug: agent, active: true }, select: { name: true, slug: true, vendorWebsite: true } })
        : null;
    if (!subject) {
      res.status(404).render('errors/error', { title: 'Nothing to claim here', detail: 'Start from the page of the shop or agent you own: "Is this your shop?".' });
      return;
    }
    res.render('pages/claim-new', { ...helpers, title: `Claim ${subject.name}`, side: merchant ? 'merchant' : 'agent', subject, website: 'website' in subject ? subject.website : subject.vendorWebsite });
  };
}

/** POST /claims: starts the claim (or finds the one this account has) and goes to its page. */
export function claimStartPost(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    const body = req.body as Record<string, string | undefined>;
    const input = body.merchant ? { merchant: body.merchant } : { agent: body.agent ?? '' };
    try {
      const { claim } = await startClaim(deps, accountOf(res).id, input, deps.clock.now());
      res.redirect(303, `/claims/${claim.id}`);
    } catch (error) {
      if (!(error instanceof Refusal) || error.kind === 'not-found') throw error;
      res.status(409).render('errors/error', { title: error.init.title, detail: error.message });
    }
  };
}

/** GET /claims/:id: what to publish, the Check button, and the newest checks. */
export function claimPage(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    noStore(res);
    const { claim, subject, checks } = await ownClaim(deps, accountOf(res).id, String(req.params.id));
    res.render('pages/claim', {
      ...helpers,
      title: subject ? `Your claim of ${subject.name}` : 'Your claim',
      claim: claimView(claim, subject, deps.baseUrl),
      subject,
      checks,
      pageFlash: takePageFlash(req.session),
    });
  };
}

/** POST /claims/:id/check: checks now, then says what was found. */
export function claimCheckPost(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    const raw = (req.body as Record<string, string | undefined>).method;
    const method = raw === 'dns' || raw === 'file' || raw === 'meta' ? raw : undefined;
    const back = `/claims/${String(req.params.id)}`;
    await withRefusalFlash(req, res, back, async () => {
      const result = await checkClaim(deps, accountOf(res).id, String(req.params.id), method, deps.clock.now());
      if (result.status === 'verified') return `Verified by ${METHOD_NAMES[result.method]}. You can now speak for it from your owner's page.`;
      const reason = result.reason ? CHECK_REASON_WORDS[result.reason] : 'not verified';
      return `${result.status === 'pending' ? 'Not finished, try again later' : 'Not verified'} (${METHOD_NAMES[result.method]}: ${reason}). ${result.detail}`;
    });
  };
}

/** GET /profile/claims: the owner's claims and what each allows. */
export function ownerPage(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    noStore(res);
    const account = accountOf(res);
    const claims = await ownClaims(deps, account.id);
    const merchantIds = claims.flatMap(({ claim }) => (claim.merchantId ? [claim.merchantId] : []));
    const agentIds = claims.flatMap(({ claim }) => (claim.agentId ? [claim.agentId] : []));
    const [statements, vendorStatements, digest] = await Promise.all([
      deps.prisma.ownerStatement.findMany({ where: { merchantId: { in: merchantIds } }, select: { merchantId: true, statement: true, taskClaims: true, declaredAt: true } }),
      deps.prisma.vendorStatement.findMany({ where: { agentId: { in: agentIds } }, select: { agentId: true, statement: true, declaredAt: true } }),
      deps.prisma.account.findUnique({ where: { id: account.id }, select: { notifyOwnerDigest: true } }),
    ]);
    res.render('pages/profile-claims', {
      ...helpers,
      title: 'Shops and agents you own',
      claims: claims.map(({ claim, subject }) => ({
        view: claimView(claim, subject, deps.baseUrl),
        verified: VERIFIED_STATUSES.includes(claim.status),
        statement: claim.merchantId ? statements.find((s) => s.merchantId === claim.merchantId) : vendorStatements.find((s) => s.agentId === claim.agentId),
      })),
      notifyOwnerDigest: digest?.notifyOwnerDigest ?? true,
      errors: (req.session.ownerFormErrors ?? null) as { claimId: string; form: string; errors: FieldErrors; values: Record<string, string> } | null,
      pageFlash: takePageFlash(req.session),
    });
    delete req.session.ownerFormErrors;
  };
}

declare module 'express-session' {
  interface SessionData {
    /** The owner's page form that was refused, with what was typed (Post/Redirect/Get). */
    ownerFormErrors: { claimId: string; form: string; errors: FieldErrors; values: Record<string, string> };
  }
}

async function keepFormErrors(req: Request, res: Response, claimId: string, form: string, errors: FieldErrors, values: Record<string, string>) {
  req.session.ownerFormErrors = { claimId, form, errors, values };
  await redirectWhenSaved(req, res, `${OWNER_PAGE_PATH}#${form}-${claimId}`);
}

/** A form read once with `schema` (formInput): its value, or the refusal of its fields as the form shows them. */
function readForm<S extends z.ZodType>(schema: S, input: unknown): { value: z.output<S> } | { errors: FieldErrors } {
  try {
    return { value: formInput(schema, input) };
  } catch (error) {
    const errors = error instanceof Refusal ? fieldErrorsOf(error) : null;
    if (!errors) throw error;
    return { errors };
  }
}

/** POST /profile/claims/:id/statement: the owner's (or vendor's) statement. */
export function statementPost(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    const claimId = String(req.params.id);
    const { claim, subject } = await ownClaim(deps, accountOf(res).id, claimId);
    const values = req.body as Record<string, string>;
    if (!subject) throw new Refusal({ kind: 'not-found', code: 'not-found', title: 'Not found', detail: 'What this claim names is no longer public.' });
    if (claim.merchantId) {
      const taskClaims = Object.fromEntries(TASKS.flatMap((t) => (values[`claim_${t}`] ? [[t, values[`claim_${t}`]]] : [])));
      const read = readForm(ownerStatementBody, { statement: values.statement ?? '', taskClaims });
      if ('errors' in read) return keepFormErrors(req, res, claimId, 'statement', read.errors, values);
      await withRefusalFlash(req, res, OWNER_PAGE_PATH, async () => {
        await writeOwnerStatement(deps, accountOf(res).id, subject.slug, read.value, deps.clock.now());
        return `Your statement about ${subject.name} is published on its page, with your attribution and today's date.`;
      });
      return;
    }
    const read = readForm(vendorStatementBody, { statement: values.statement ?? '' });
    if ('errors' in read) return keepFormErrors(req, res, claimId, 'statement', read.errors, values);
    await withRefusalFlash(req, res, OWNER_PAGE_PATH, async () => {
      await writeVendorStatement(deps, accountOf(res).id, subject.slug, read.value, deps.clock.now());
      return `Your statement about ${subject.name} is published on its page, with your attribution and today's date.`;
    });
  };
}

/** POST /profile/claims/:id/correction: a correction of the merchant's details, for the moderators. */
export function correctionPost(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    const claimId = String(req.params.id);
    const { subject } = await ownClaim(deps, accountOf(res).id, claimId);
    const values = req.body as Record<string, string>;
    const input = {
      ...(values.name?.trim() ? { name: values.name } : {}),
      ...(values.website?.trim() ? { website: values.website } : {}),
      ...(values.category?.trim() ? { category: values.category.trim() } : {}),
      ...(values.serviceRegions?.trim() ? { serviceRegions: values.serviceRegions.split(/[\s,;]+/).filter(Boolean) } : {}),
      note: values.note ?? '',
    };
    const read = readForm(correctionBody, input);
    if ('errors' in read || subject?.side !== 'MERCHANT') {
      const errors = 'errors' in read ? read.errors : { form: 'Only a merchant’s details can be corrected.' };
      return keepFormErrors(req, res, claimId, 'correction', errors, values);
    }
    await withRefusalFlash(req, res, OWNER_PAGE_PATH, async () => {
      await requestCorrection(deps, accountOf(res).id, subject.slug, read.value, deps.clock.now());
      return `Your correction of ${subject.name} is waiting for a moderator; nothing changes until one approves it.`;
    });
  };
}

/** GET /profile/claims/:id/reports: the approved reports about what the claim names, each with a reply form. */
export function replyPage(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    noStore(res);
    const { claim, subject } = await ownClaim(deps, accountOf(res).id, String(req.params.id));
    const where = claim.merchantId ? { merchantId: claim.merchantId } : { agentId: claim.agentId! };
    const reports = await deps.prisma.report.findMany({
      where: { ...where, status: 'APPROVED', merchant: { isPublic: true }, agent: { active: true } },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: 50,
      select: {
        id: true,
        outcome: true,
        experience: true,
        testedAt: true,
        createdAt: true,
        merchant: { select: { name: true, slug: true } },
        agent: { select: { name: true } },
        replies: { where: { claimId: claim.id }, select: { body: true, status: true, feedback: true } },
      },
    });
    res.render('pages/claim-reports', {
      ...helpers,
      title: subject ? `Reports about ${subject.name}` : 'Reports',
      claim: claimView(claim, subject, deps.baseUrl),
      verified: VERIFIED_STATUSES.includes(claim.status),
      reports,
      pageFlash: takePageFlash(req.session),
    });
  };
}

/** POST /profile/claims/:id/reports/:reportId/reply: one short reply, moderated. */
export function replyPost(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    const back = `${OWNER_PAGE_PATH}/${String(req.params.id)}/reports#report-${String(req.params.reportId)}`;
    const read = readForm(replyBody, { body: (req.body as Record<string, string>).body ?? '' });
    await withRefusalFlash(req, res, back, async () => {
      if ('errors' in read) return `Your reply was not sent: it ${read.errors.body ?? 'is not valid'}.`;
      const { unchanged } = await replyToReport(deps, accountOf(res).id, String(req.params.reportId), read.value.body, deps.clock.now());
      return unchanged ? 'Your reply is unchanged.' : 'Your reply is waiting for a moderator; it will show under the report once approved.';
    });
  };
}

/** POST /profile/claims/digest: the owner's digest e-mail on or off. */
export function digestPost(deps: ClaimPagesDeps): RequestHandler {
  return async (req, res) => {
    const on = (req.body as Record<string, string>).notifyOwnerDigest === 'on';
    await deps.prisma.account.update({ where: { id: accountOf(res).id }, data: { notifyOwnerDigest: on } });
    setPageFlash(req.session, on ? 'You will get a digest of newly approved reports about what you own.' : 'You will get no digest e-mails.');
    await redirectWhenSaved(req, res, OWNER_PAGE_PATH);
  };
}

// Replacing a report with a complete new version (spec 3 and 4.3): one set of rules for
// PUT /api/v1/automation/reports/:id (and the MCP tool update_report) and for the author's
// edit form (/reports/:id/edit). The merchant and agent cannot change; identical content
// writes nothing and keeps the status; changed content needs the current version, counts
// against the channel's quota, records the old content as a revision, goes back to PENDING
// and keeps its screenshots (the edit form may add or remove some with it: a change too); an
// approved report leaves the directory until approved again.
import type { PrismaClient, Tx } from '../../db/client.js';
import { invalidField, invalidInput, notFound, Refusal, type LimitUsage } from '../../errors.js';
import { UUID_PATTERN } from '../../text.js';
import { evidenceChanged } from '../aggregation/evidence.js';
import type { Quota } from '../limits/quota.js';
import { contentOf, frozenOutcome, sameContent } from './content.js';
import { frozenOutcomeDetail } from './definitions.js';
import type { ReportSubmission } from './submission.schema.js';
import { checkTargets, isFutureTestDate, readingNotes, type Submitter, type ValidationResult } from './submissions.service.js';
import { reportAddressHash } from './address-hash.js';
import { findOwnReportById, recordRevision, replaceContentIfVersion, type OwnReportRow } from './submissions.repository.js';
import { namesVersion, type VersionCondition } from './versions.js';

export interface ReplacementDeps {
  prisma: PrismaClient;
  /** The quota a changed replacement counts against: agent submissions for a key, browser submissions for a person. */
  quota: Quota;
  /** Keys the hash of the submitter's address (address-hash.ts); without it the stored hash is kept. */
  addressSecret?: string;
}

/** Screenshots a replacement adds or removes, written in its transaction. */
interface EvidenceChange {
  changed: boolean;
  apply(tx: Tx, reportId: string): Promise<void>;
}

export interface ReplacementResult {
  /** The report as it was before this request. */
  previous: OwnReportRow;
  status: OwnReportRow['status'];
  updatedAt: Date;
  unchanged: boolean;
  /** The quota a written replacement counted against (for the RateLimit headers). */
  usage?: LimitUsage;
}

/** A replacement named a version that is not the report's current one. */
const staleVersion = (updatedAt: Date, note = '') =>
  new Refusal({
    kind: 'conflict',
    code: 'stale-version',
    title: 'The report has changed',
    detail: `If-Match does not name the current version.${note} Read the report again and retry with its updatedAt.`,
    extensions: { updatedAt: updatedAt.toISOString() },
  });

/** What a replacement names: the report, the version it expects, the new body. */
export interface ReplacementInput {
  id: string;
  version: VersionCondition;
  versionNote?: string;
  /** A malformed precondition: refused once the report is known to exist. */
  versionRefusal?: Refusal;
  body: ReportSubmission;
  statusAsRead?: string;
  /**
   * Screenshots added or removed with this replacement (the edit form only): a change of
   * evidence is a change of the report, so it is written even when the answers are the same.
   */
  evidence?: EvidenceChange;
  now: Date;
}

/**
 * Every check a replacement makes before it writes, in order, reading only: the report is the
 * submitter's, the precondition is well formed, the merchant and agent are the same, a status
 * only as read, the date, a derived outcome not sent back frozen, then identical content (a no-op whatever the version) or the version
 * and the targets. A key reaches only its own agent's reports; a person signed in reaches every
 * report of the account.
 */
async function checkReplacement(prisma: PrismaClient, submitter: Submitter, input: ReplacementInput) {
  const existing = UUID_PATTERN.test(input.id) ? await findOwnReportById(prisma, submitter.accountId, input.id.toLowerCase()) : null;
  if (!existing || (submitter.channel === 'AGENT_KEY' && existing.agentId !== submitter.agentId)) {
    throw notFound(submitter.channel === 'AGENT_KEY' ? 'This account has no report with this id for this agent.' : 'This account has no report with this id.');
  }
  if (input.versionRefusal) throw input.versionRefusal;
  // The merchant and agent of a report cannot change.
  const unchangeable = (['adId', 'agentId'] as const).filter((field) =>
    field === 'adId' ? input.body.adId !== existing.merchantId : input.body.agentId !== existing.agentId,
  );
  if (unchangeable.length > 0) {
    throw invalidInput(unchangeable.map((field) => ({ pointer: `#/${field}`, detail: 'cannot change' })), 'body');
  }
  // A status is accepted only as read (spec 5 rule 9).
  if (input.statusAsRead !== undefined && input.statusAsRead !== existing.status) {
    throw invalidField('status', `is set by moderation and cannot be sent: it is ${existing.status} now. Leave it out, or send it as read.`);
  }
  if (isFutureTestDate(input.body.testedAt, input.now)) throw invalidField('testedAt', 'must not be in the future');
  const content = contentOf(input.body);
  // The outcome trap (issue 35): a derived outcome sent back as read with task results that derive
  // another is refused, not kept as given nor derived again. The body is refused whole, so a
  // retry is refused the same way, and the corrected body (outcome null), once written, is
  // identical content on its retry: 200 unchanged either way.
  const derived = frozenOutcome(existing.content, content);
  if (derived) throw invalidField('outcome', frozenOutcomeDetail(content.outcome, derived));
  // Identical content writes nothing, whatever version was named: a retry is harmless.
  const unchanged = sameContent(existing.content, content) && !input.evidence?.changed;
  if (!unchanged) {
    if (!namesVersion(input.version, existing.updatedAt)) throw staleVersion(existing.updatedAt, input.versionNote);
    await checkTargets(prisma, input.body, submitter);
  }
  return { existing, content, unchanged };
}

/**
 * The dry run of a replacement (POST /api/v1/automation/reports/{id}/validate, validate_report
 * with an id): every check of replaceOwnReport with the same refusals, nothing written and no
 * quota used.
 */
export async function validateReplacement(prisma: PrismaClient, submitter: Submitter, input: ReplacementInput): Promise<ValidationResult> {
  const { existing, content, unchanged } = await checkReplacement(prisma, submitter, input);
  return {
    kind: unchanged ? 'unchanged' : 'updated',
    content,
    adId: existing.merchantId,
    agentId: existing.agentId,
    existing,
    notes: await readingNotes(prisma, existing.agentId, content),
  };
}

/**
 * Replaces one of the submitter's own reports with `body`, if `version` names its current
 * version (null: none, which only an identical body survives; `*`: whichever is current).
 * `versionNote` completes the refusal of a stale version (say, why a weak tag never matches).
 * `statusAsRead`: a status the client sent back as read (accepted only when it is the current
 * one: a client never sets a status).
 */
export async function replaceOwnReport(deps: ReplacementDeps, submitter: Submitter, input: ReplacementInput): Promise<ReplacementResult> {
  const { existing, content, unchanged } = await checkReplacement(deps.prisma, submitter, input);
  if (unchanged) return { previous: existing, status: existing.status, updatedAt: existing.updatedAt, unchanged: true };

  const usage = await deps.quota.consume(submitter.accountId);
  try {
    const updatedAt = await deps.prisma.$transaction(async (tx) => {
      const applied = await replaceContentIfVersion(tx, {
        id: existing.id,
        accountId: submitter.accountId,
        expectedUpdatedAt: existing.updatedAt,
        content,
        now: input.now,
        addressHash: reportAddressHash(deps.addressSecret, submitter.address),
      });
      if (!applied) throw staleVersion((await findOwnReportById(tx, submitter.accountId, existing.id))?.updatedAt ?? existing.updatedAt);
      await recordRevision(tx, existing, input.now);
      if (input.evidence?.changed) await input.evidence.apply(tx, existing.id);
      // An approved report leaves the public directory until it is approved again.
      if (existing.status === 'APPROVED') {
        await evidenceChanged(tx, { pairs: [{ merchantId: existing.merchantId, agentId: existing.agentId }] }, input.now);
      }
      return applied;
    });
    return { previous: existing, status: 'PENDING', updatedAt, unchanged: false, usage };
  } catch (error) {
    await deps.quota.refund(submitter.accountId);
    throw error;
  }
}

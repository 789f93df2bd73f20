// The owners' API bodies (issue 34) and what it answers: one schema each for validation, the
// OpenAPI document and the tests.
import { z } from 'zod';
import { OUTCOMES, TASKS, type OutcomeKey } from '../aggregation/constants.js';
import { storable } from '../../text.js';
import { websiteProblem } from '../merchants/merchant-admin.service.js';
import { serviceRegion } from '../../countries.js';
import { Notice } from '../directory/schemas.js';
import { CLAIM_METHODS } from './proof.js';
import { REPLY_MAX_LENGTH } from './owners.service.js';

const STATEMENT_MAX_LENGTH = 4_000;
const CORRECTION_NOTE_MAX_LENGTH = 2_000;

const slugOrId = z.string().min(1, 'must not be empty').max(100, 'must be at most 100 characters');
const text = (max: number) =>
  z.string().trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`).superRefine(storable({ multiline: true }));

export const claimStart = z
  .strictObject({
    merchant: slugOrId.optional().describe('The merchant to claim: its slug or id.'),
    agent: slugOrId.optional().describe('The agent to claim (as its vendor): its slug or id.'),
  })
  .refine((b) => (b.merchant === undefined) !== (b.agent === undefined), { message: 'name exactly one of merchant and agent', path: [] })
  .meta({ id: 'ClaimStart', description: 'Which merchant (or agent) this account claims: exactly one of the two.' });

export const claimCheck = z
  .strictObject({ method: z.enum(CLAIM_METHODS).optional().describe('The one method to check; without it, each allowed method in turn until one verifies.') })
  .meta({ id: 'ClaimCheckRequest' });

export const ownerStatementBody = z
  .strictObject({
    statement: text(STATEMENT_MAX_LENGTH).describe(`The owner's statement about agents on their site, up to ${STATEMENT_MAX_LENGTH} characters. Published with the owner's attribution; never evidence.`),
    taskClaims: z
      .strictObject(
        Object.fromEntries(TASKS.map((t) => [t, z.enum(OUTCOMES).optional()])) as Record<(typeof TASKS)[number], z.ZodOptional<z.ZodEnum<{ [K in OutcomeKey]: K }>>>,
      )
      .optional()
      .describe('What the owner says of each task (task key to outcome key); optional.'),
  })
  .meta({ id: 'OwnerStatementRequest' });

export const vendorStatementBody = z
  .strictObject({ statement: text(STATEMENT_MAX_LENGTH).describe(`The vendor's statement about their agent, up to ${STATEMENT_MAX_LENGTH} characters; never evidence.`) })
  .meta({ id: 'VendorStatementRequest' });

export const replyBody = z
  .strictObject({ body: text(REPLY_MAX_LENGTH).describe(`One short public reply, up to ${REPLY_MAX_LENGTH} characters; moderated, and it never changes the report.`) })
  .meta({ id: 'ReplyRequest' });

const website = z
  .string()
  .trim()
  .max(2048, 'must be at most 2048 characters')
  .superRefine((value, ctx) => {
    const problem = websiteProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: problem });
  });

export const correctionBody = z
  .strictObject({
    name: text(200).optional().describe('The merchant\'s correct name.'),
    website: website.optional().describe('The correct website address (https://…).'),
    category: z.string().min(1).max(100).optional().describe('The correct category: a canonical category slug.'),
    serviceRegions: z
      .array(
        z.string().transform((value, ctx) => {
          const code = serviceRegion(value);
          if (!code) {
            ctx.addIssue({ code: 'custom', message: 'must be a country (ISO 3166-1 alpha-2 code or name) or GLOBAL' });
            return z.NEVER;
          }
          return code;
        }),
      )
      .max(50, 'at most 50 regions')
      .optional()
      .describe('The regions served: ISO 3166-1 alpha-2 codes, or GLOBAL.'),
    note: text(CORRECTION_NOTE_MAX_LENGTH).describe('What is wrong and why, for the moderators.'),
  })
  .refine((b) => b.name !== undefined || b.website !== undefined || b.category !== undefined || b.serviceRegions !== undefined, {
    message: 'propose at least one of name, website, category and serviceRegions',
    path: [],
  })
  .meta({ id: 'CorrectionRequest', description: 'A correction of a merchant\'s details, with a note; nothing changes until a moderator approves it.' });

// Answers.

const isoDateTime = z.iso.datetime({ offset: true });
const method = z.enum(CLAIM_METHODS);

const ClaimSchema = z
  .object({
    id: z.uuid(),
    status: z.enum(['pending', 'verified', 'grace', 'lapsed', 'revoked']).describe('pending: not proved yet; verified; grace: verified, but a re-check failed (it lapses at graceUntil unless proved again); lapsed; revoked by a moderator.'),
    subject: z
      .object({ type: z.enum(['merchant', 'agent']), slug: z.string(), name: z.string(), website: z.string().nullable() })
      .nullable()
      .describe('What is claimed; null once the merchant is hidden or the agent deactivated.'),
    host: z.string().describe('The host the claim is for.'),
    sharedHost: z.boolean().describe('The website is a path on a host others share: only the meta method can prove it.'),
    method: method.nullable().describe('The method that verified it.'),
    verifiedAt: isoDateTime.nullable(),
    checkedAt: isoDateTime.nullable(),
    graceUntil: isoDateTime.nullable(),
    methods: z
      .object({
        dns: z.union([z.object({ name: z.string().describe('Where to publish the TXT record.'), value: z.string().describe('The TXT record\'s text, exactly.') }), z.object({ refused: z.string() })]),
        file: z.union([z.object({ url: z.string().describe('Where to serve the file.'), content: z.string().describe('A line of the file, exactly.') }), z.object({ refused: z.string() })]),
        meta: z.object({ tag: z.string().describe('The tag to put in the page\'s <head>.'), url: z.string().describe('The page it must be on.') }),
      })
      .describe('Exactly what to publish for each method; a method that cannot prove this website says why (refused).'),
    url: z.url(),
    pageUrl: z.url().describe('The claim\'s page on the site, with copy buttons and a Check button.'),
  })
  .meta({ id: 'Claim', description: 'A claim as its holder sees it. Private: the token and the checks are ownership evidence.' });

const ClaimCheckResult = z
  .object({
    status: z.enum(['verified', 'failed', 'pending']).describe('verified: the proof was found; failed: it was not (reason says why); pending: the check could not be finished now (too slow, unreachable): try again later.'),
    method: method,
    checkedAt: isoDateTime,
    reason: z
      .enum(['bad-url', 'not-found', 'wrong-content', 'address-refused', 'redirect-refused', 'too-slow', 'too-large', 'unreachable', 'http-error', 'method-refused'])
      .nullable(),
    detail: z.string().describe('What was looked for, and what was found, in words.'),
    tried: z.array(z.object({ method, outcome: z.enum(['verified', 'failed', 'pending']), reason: z.string().nullable(), detail: z.string() })),
    claim: ClaimSchema,
  })
  .meta({ id: 'ClaimCheckResult' });

// Envelopes: each answer is `{data, methodology, disclaimer}` like every other one.

const envelope = <T extends z.ZodType>(data: T, id: string, extra: z.ZodRawShape = {}) => z.object({ data, ...extra, ...Notice }).meta({ id });

export const ClaimAnswer = envelope(ClaimSchema, 'ClaimAnswer', {
  created: z.boolean().optional().describe('On POST: false when this account already held an open claim of it (that claim is answered, 200).'),
});
export const ClaimList = envelope(z.array(ClaimSchema), 'ClaimList');
export const ClaimCheckAnswer = envelope(ClaimCheckResult, 'ClaimCheckAnswer');
export const OwnerStatementAnswer = envelope(
  z.object({
    merchant: z.string().describe('The merchant\'s slug.'),
    statement: z.string(),
    taskClaims: z.record(z.string(), z.string()).nullable(),
    declaredAt: z.iso.date().describe('The declaration date (the day it was written).'),
    attribution: z.string(),
    byVerifiedOwner: z.literal(true),
  }),
  'OwnerStatementAnswer',
);
export const VendorStatementAnswer = envelope(
  z.object({ agent: z.string().describe('The agent\'s slug.'), statement: z.string(), declaredAt: z.iso.date().describe('The declaration date.') }),
  'VendorStatementAnswer',
);
export const ReplyAnswer = envelope(
  z.object({
    id: z.uuid(),
    status: z.enum(['PENDING', 'APPROVED', 'REJECTED']).describe('PENDING until a moderator approves it; a changed reply is moderated again.'),
    from: z.enum(['owner', 'vendor']),
    body: z.string(),
    unchanged: z.boolean(),
  }),
  'ReplyAnswer',
);
export const CorrectionAnswer = envelope(
  z.object({
    id: z.uuid(),
    status: z.enum(['PENDING', 'APPROVED', 'REJECTED']),
    proposed: z.record(z.string(), z.unknown()).describe('The proposed details, normalized.'),
    note: z.string(),
    createdAt: isoDateTime,
  }),
  'CorrectionAnswer',
);

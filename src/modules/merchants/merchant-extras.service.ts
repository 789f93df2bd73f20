// What a merchant may carry besides its record: a sponsorship (advertising, never evidence;
// the billing id stays on the admin side) and an owner statement (attributed to the owner,
// never counted in any score). Both are saved and removed the same way, by one helper: under
// the merchant's lock, with an audit row naming what changed, in one transaction.
import { z } from 'zod';
import { isoDay } from '../../dates.js';
import { notFound } from '../../errors.js';
import { dayField, nameField, optionalText, type FormValues } from '../../forms.js';
import { OUTCOMES, TASKS } from '../aggregation/constants.js';
import { lockMerchants } from '../aggregation/evidence.js';
import { type ChangeContext, auditChanges, auditJson, insertAuditEntry } from '../audit/audit.repository.js';
import { findMerchant, MERCHANT_EXTRAS, type OwnerStatementFields, type SponsorshipFields } from './merchant-admin.repository.js';

export const SPONSORSHIP_PLACEMENTS = ['directory-top', 'category-top'] as const;
export const SPONSORSHIP_SOURCES = ['subscription', 'publisher_owned'] as const;
const OWNER_TEXT_MAX = 4000;
const DAY_MS = 24 * 60 * 60 * 1000;

type Extra = keyof typeof MERCHANT_EXTRAS;
type FieldsOf<K extends Extra> = K extends 'sponsorship' ? SponsorshipFields : OwnerStatementFields;

/** Creates or replaces one extra of a merchant; `created` tells which. Nothing written when nothing changed. */
async function saveExtra<K extends Extra>(
  { prisma, actorId, now }: ChangeContext,
  kind: K,
  input: { merchantId: string; fields: FieldsOf<K> },
): Promise<{ created: boolean }> {
  const extra = MERCHANT_EXTRAS[kind];
  return prisma.$transaction(async (tx) => {
    await lockMerchants(tx, [input.merchantId]);
    if (!(await findMerchant(tx, input.merchantId))) throw notFound('There is no merchant at this address.', 'Merchant not found');
    const before = await extra.find(tx, input.merchantId);
    const diff = auditChanges(before ?? {}, input.fields as unknown as Record<string, unknown>);
    if (before && Object.keys(diff).length === 0) return { created: false };
    await (extra.save as (db: typeof tx, merchantId: string, fields: FieldsOf<K>, now: Date) => Promise<unknown>)(tx, input.merchantId, input.fields, now);
    const action = `${kind}.${before ? 'update' : 'create'}`;
    await insertAuditEntry(tx, { actorId, action, targetType: 'merchant', targetId: input.merchantId, details: auditJson({ changes: diff }), now });
    return { created: !before };
  });
}

/** Removes one extra of a merchant; false when there was none. The audit row keeps what it said. */
async function removeExtra(
  { prisma, actorId, now }: ChangeContext,
  kind: Extra,
  input: { merchantId: string; describe: (before: never) => FormValues },
): Promise<boolean> {
  const extra = MERCHANT_EXTRAS[kind];
  return prisma.$transaction(async (tx) => {
    const before = await extra.find(tx, input.merchantId);
    if (!before) return false;
    await extra.remove(tx, input.merchantId);
    const details = auditJson({ removed: input.describe(before as never) });
    await insertAuditEntry(tx, { actorId, action: `${kind}.remove`, targetType: 'merchant', targetId: input.merchantId, details, now });
    return true;
  });
}

/** The sponsorship form: days are UTC days, the last one included. */
export const sponsorshipForm = z
  .object({
    source: z.enum(SPONSORSHIP_SOURCES, 'Choose a paid subscription or an authorised publisher-owned promotion'),
    placement: z.enum(SPONSORSHIP_PLACEMENTS, 'Choose a placement'),
    disclosure: nameField(500, 'The disclosure text is required: sponsored listings are always labelled as advertising'),
    startsOn: dayField('Enter the first day'),
    endsOn: z.string().trim().default('').pipe(z.union([z.literal(''), dayField('')])),
    billingId: optionalText(200),
  })
  .superRefine((f, ctx) => {
    if (f.endsOn && f.endsOn < f.startsOn) ctx.addIssue({ code: 'custom', path: ['endsOn'], message: 'The last day cannot be before the first day' });
  });

export function sponsorshipFormValues(s: { source: string; placement: string; disclosure: string; startsAt: Date; endsAt: Date | null; billingId: string | null }): FormValues {
  return {
    source: s.source,
    placement: s.placement,
    disclosure: s.disclosure,
    startsOn: isoDay(s.startsAt),
    endsOn: s.endsAt ? isoDay(new Date(s.endsAt.getTime() - DAY_MS)) : '',
    billingId: s.billingId ?? '',
  };
}

/** Dates are UTC days: it runs from the first day's start to the end of the last day. */
export async function setSponsorship(change: ChangeContext, merchantId: string, f: z.output<typeof sponsorshipForm>): Promise<{ created: boolean }> {
  const fields: SponsorshipFields = {
    source: f.source,
    placement: f.placement,
    disclosure: f.disclosure,
    startsAt: new Date(`${f.startsOn}T00:00:00Z`),
    endsAt: f.endsOn ? new Date(new Date(`${f.endsOn}T00:00:00Z`).getTime() + DAY_MS) : null,
    billingId: f.billingId || null,
  };
  return saveExtra(change, 'sponsorship', { merchantId, fields });
}

export const removeSponsorship = (change: ChangeContext, merchantId: string) =>
  removeExtra(change, 'sponsorship', { merchantId, describe: sponsorshipFormValues });

/** The owner statement form; `today` is the latest declaration date it takes. */
export const ownerStatementForm = (today: string) =>
  z.object({
    statement: nameField(OWNER_TEXT_MAX, 'Enter the owner’s statement', { multiline: true }),
    declaredOn: dayField('Enter the date the owner made the statement').refine((d) => d <= today, 'The declaration date cannot be in the future'),
    ownershipEvidence: optionalText(OWNER_TEXT_MAX, { multiline: true }),
    ...Object.fromEntries(
      TASKS.map((task) => [`claim_${task}`, z.preprocess((v) => (v === '' ? undefined : v), z.enum(OUTCOMES, 'Choose one of the listed outcomes').optional())]),
    ),
  });

export function ownerStatementFormValues(s: { statement: string; taskClaims: unknown; declaredAt: Date; ownershipEvidence: string | null }): FormValues {
  const claims = (s.taskClaims ?? {}) as Record<string, string>;
  return {
    statement: s.statement,
    declaredOn: isoDay(s.declaredAt),
    ownershipEvidence: s.ownershipEvidence ?? '',
    ...Object.fromEntries(TASKS.filter((t) => claims[t]).map((t) => [`claim_${t}`, claims[t]!])),
  };
}

export async function setOwnerStatement(
  change: ChangeContext,
  merchantId: string,
  input: z.output<ReturnType<typeof ownerStatementForm>>,
): Promise<{ created: boolean }> {
  // The claim_<task> fields are in the value but not in its type (spread from Object.fromEntries).
  const f = input as Record<string, string | undefined> & { statement: string; declaredOn: string; ownershipEvidence: string };
  const taskClaims = Object.fromEntries(TASKS.flatMap((task) => (f[`claim_${task}`] ? [[task, f[`claim_${task}`]!]] : [])));
  const fields: OwnerStatementFields = {
    statement: f.statement,
    taskClaims,
    declaredAt: new Date(`${f.declaredOn}T00:00:00Z`),
    ownershipEvidence: f.ownershipEvidence || null,
  };
  return saveExtra(change, 'owner-statement', { merchantId, fields });
}

export const removeOwnerStatement = (change: ChangeContext, merchantId: string) =>
  removeExtra(change, 'owner-statement', { merchantId, describe: ownerStatementFormValues });

// Moderators adding and editing merchants. Each change is one transaction with its audit row;
// hiding or showing a merchant changes which evidence is public, so it goes through the
// evidence write path (its summaries recomputed in the same transaction), and the public
// directory changes exactly when it commits.
import { z } from 'zod';
import type { Tx } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { notFound } from '../../errors.js';
import { checkbox, fieldRefusal, nameField, slugField, type FormValues } from '../../forms.js';
import { UUID_PATTERN, slugify } from '../../text.js';
import { evidenceChanged, lockMerchants } from '../aggregation/evidence.js';
import { type ChangeContext, auditChanges, auditJson, insertAuditEntry } from '../audit/audit.repository.js';
import { categoryName, findMerchant, insertMerchant, slugOwner, updateMerchantRow, type MerchantFields } from './merchant-admin.repository.js';
import { serviceRegion } from '../../countries.js';


/** "de, FR global" -> ["DE", "FR", "GLOBAL"]; unknown codes are errors. */
function parseRegions(input: string, ctx: z.RefinementCtx): string[] {
  const codes: string[] = [];
  for (const typed of input.split(/[\s,;]+/).filter(Boolean)) {
    const code = serviceRegion(typed);
    if (!code) {
      ctx.addIssue({ code: 'custom', message: `"${typed}" is not a country code: use two-letter codes such as DE or US, or GLOBAL` });
      return [];
    }
    if (!codes.includes(code)) codes.push(code);
  }
  if (codes.length > 50) ctx.addIssue({ code: 'custom', message: 'At most 50 regions' });
  return codes.sort();
}

/** An http(s) address of a site on the public internet, without credentials. */
export function websiteProblem(value: string): string | null {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter a full web address starting with https:// or http://, such as https://shop.example';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The website must be an https:// or http:// address';
  if (url.username || url.password) return 'The website address must not contain a user name or password';
  if (!url.hostname.includes('.') || url.hostname.endsWith('.')) return 'The website needs a full host name, such as shop.example';
  if (/\s/.test(value)) return 'The website address must not contain spaces';
  return null;
}

/** The merchant form, the moderators' (and an approved owner's correction, through it). */
export const merchantForm = z.object({
  name: nameField(200, 'Enter the merchant’s name'),
  slug: slugField('merchant'),
  website: z
    .string()
    .trim()
    .min(1, 'Enter the website address')
    .max(2048, 'At most 2048 characters')
    .superRefine((value, ctx) => {
      const problem = websiteProblem(value);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    }),
  categoryId: z.string().regex(UUID_PATTERN, 'Choose a category'),
  serviceRegions: z.string().max(1000, 'Too long').default('').transform(parseRegions),
  isPublic: checkbox,
  approvedCanonical: checkbox,
});

type MerchantInput = z.infer<typeof merchantForm>;

const auditFields = (m: MerchantFields | (Omit<MerchantFields, 'categoryId'> & { categoryId: string | null })) => ({
  name: m.name,
  slug: m.slug,
  website: m.website,
  category: m.category,
  categoryId: m.categoryId,
  serviceRegions: m.serviceRegions,
  isPublic: m.isPublic,
  approvedCanonical: m.approvedCanonical,
});

/** Refuses a slug another merchant holds, or a category that is not one of the list. */
async function refuseConflicts(tx: Tx, input: MerchantInput, exceptId: string | null): Promise<void> {
  const [owner, category] = await Promise.all([slugOwner(tx, input.slug, exceptId), categoryName(tx, input.categoryId)]);
  const refused: Parameters<typeof fieldRefusal> = [];
  if (owner) refused.push({ field: 'slug', rule: 'slugTaken', detail: `The slug "${input.slug}" is already used by ${owner}` });
  if (category === null) refused.push({ field: 'categoryId', rule: 'unknownCategory', detail: 'Choose one of the listed categories' });
  if (refused.length) throw fieldRefusal(...refused);
}

/** A unique violation that slipped past the checks (a race) refuses the slug. */
function refusingTakenSlug(error: unknown, slug: string): never {
  if (isUniqueViolation(error)) throw fieldRefusal({ field: 'slug', rule: 'slugTaken', detail: `The slug "${slug}" is already used` });
  throw error;
}

export async function createMerchant(change: ChangeContext, posted: MerchantInput): Promise<{ id: string }> {
  const { prisma, actorId, now } = change;
  const input = { ...posted, slug: posted.slug || slugify(posted.name) };
  if (!input.slug) throw fieldRefusal({ field: 'slug', rule: 'slugMissing', detail: 'Enter a slug: the name gives none' });
  try {
    return await prisma.$transaction(async (tx) => {
      await refuseConflicts(tx, input, null);
      const created = await insertMerchant(tx, { ...input, category: (await categoryName(tx, input.categoryId))! }, now);
      const details = auditJson(auditFields(created));
      await insertAuditEntry(tx, { actorId, action: 'merchant.create', targetType: 'merchant', targetId: created.id, details, now });
      return { id: created.id };
    });
  } catch (error) {
    return refusingTakenSlug(error, input.slug);
  }
}

export async function updateMerchant(
  change: ChangeContext,
  id: string,
  input: MerchantInput,
): Promise<{ changed: string[]; visibility: 'hidden' | 'shown' | null }> {
  const { prisma, actorId, now } = change;
  if (!input.slug) throw fieldRefusal({ field: 'slug', rule: 'slugMissing', detail: 'Enter a slug' });
  try {
    return await prisma.$transaction(async (tx) => {
      // The merchant row is the lock its summary recomputations take (moderation decisions too).
      await lockMerchants(tx, [id]);
      const before = await findMerchant(tx, id);
      if (!before) throw notFound('There is no merchant at this address.', 'Merchant not found');
      await refuseConflicts(tx, input, id);
      // The original category string stays until the category itself changes.
      const category = before.categoryId === input.categoryId ? before.category : (await categoryName(tx, input.categoryId))!;
      const after = { ...input, category };
      const diff = auditChanges(auditFields(before), auditFields(after));
      const changed = Object.keys(diff);
      if (changed.length === 0) return { changed, visibility: null };
      await updateMerchantRow(tx, id, after, now);
      const visibility = before.isPublic === input.isPublic ? null : input.isPublic ? ('shown' as const) : ('hidden' as const);
      // Hidden: its summaries go and its reports leave every public output in this commit;
      // shown again: they come back from its approved reports.
      if (visibility) await evidenceChanged(tx, { merchantIds: [id] }, now);
      const action = visibility === 'hidden' ? 'merchant.hide' : visibility === 'shown' ? 'merchant.show' : 'merchant.update';
      await insertAuditEntry(tx, { actorId, action, targetType: 'merchant', targetId: id, details: auditJson({ changes: diff }), now });
      return { changed, visibility };
    });
  } catch (error) {
    return refusingTakenSlug(error, input.slug);
  }
}

export function merchantFormValues(m: {
  name: string;
  slug: string;
  website: string;
  categoryId: string | null;
  serviceRegions: string[];
  isPublic: boolean;
  approvedCanonical: boolean;
}): FormValues {
  return {
    name: m.name,
    slug: m.slug,
    website: m.website,
    categoryId: m.categoryId ?? '',
    serviceRegions: m.serviceRegions.join(', '),
    ...(m.isPublic ? { isPublic: 'on' } : {}),
    ...(m.approvedCanonical ? { approvedCanonical: 'on' } : {}),
  };
}

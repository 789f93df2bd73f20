// Moderators adding and editing merchants. Each change is one transaction with its audit row;
// hiding or showing a merchant changes which evidence is public, so it goes through the
// evidence write path (its summaries recomputed in the same transaction), and the public
// directory changes exactly when it commits.
import { z } from 'zod';
import type { Tx } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { notFound } from '../../errors.js';
import { checkbox, nameField, slugField, zodFieldErrors, type FieldErrors, type FormResult, type FormValues } from '../../forms.js';
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

const merchantForm = z.object({
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

async function conflicts(tx: Tx, input: MerchantInput, exceptId: string | null): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const [owner, category] = await Promise.all([slugOwner(tx, input.slug, exceptId), categoryName(tx, input.categoryId)]);
  if (owner) errors.slug = `The slug "${input.slug}" is already used by ${owner}`;
  if (category === null) errors.categoryId = 'Choose one of the listed categories';
  return errors;
}

const slugTaken = (slug: string): FormResult<never> => ({ ok: false, errors: { slug: `The slug "${slug}" is already used` } });

export async function createMerchant(change: ChangeContext, values: FormValues): Promise<FormResult<{ id: string }>> {
  const { prisma, actorId, now } = change;
  const parsed = merchantForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = { ...parsed.data, slug: parsed.data.slug || slugify(parsed.data.name) };
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug: the name gives none' } };
  try {
    return await prisma.$transaction(async (tx) => {
      const errors = await conflicts(tx, input, null);
      if (Object.keys(errors).length) return { ok: false as const, errors };
      const created = await insertMerchant(tx, { ...input, category: (await categoryName(tx, input.categoryId))! }, now);
      const details = auditJson(auditFields(created));
      await insertAuditEntry(tx, { actorId, action: 'merchant.create', targetType: 'merchant', targetId: created.id, details, now });
      return { ok: true as const, value: { id: created.id } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return slugTaken(input.slug);
    throw error;
  }
}

export async function updateMerchant(
  change: ChangeContext,
  id: string,
  values: FormValues,
): Promise<FormResult<{ changed: string[]; visibility: 'hidden' | 'shown' | null }>> {
  const { prisma, actorId, now } = change;
  const parsed = merchantForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = parsed.data;
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug' } };
  try {
    return await prisma.$transaction(async (tx) => {
      // The merchant row is the lock its summary recomputations take (moderation decisions too).
      await lockMerchants(tx, [id]);
      const before = await findMerchant(tx, id);
      if (!before) throw notFound('There is no merchant at this address.', 'Merchant not found');
      const errors = await conflicts(tx, input, id);
      if (Object.keys(errors).length) return { ok: false as const, errors };
      // The original category string stays until the category itself changes.
      const category = before.categoryId === input.categoryId ? before.category : (await categoryName(tx, input.categoryId))!;
      const after = { ...input, category };
      const diff = auditChanges(auditFields(before), auditFields(after));
      const changed = Object.keys(diff);
      if (changed.length === 0) return { ok: true as const, value: { changed, visibility: null } };
      await updateMerchantRow(tx, id, after, now);
      const visibility = before.isPublic === input.isPublic ? null : input.isPublic ? ('shown' as const) : ('hidden' as const);
      // Hidden: its summaries go and its reports leave every public output in this commit;
      // shown again: they come back from its approved reports.
      if (visibility) await evidenceChanged(tx, { merchantIds: [id] }, now);
      const action = visibility === 'hidden' ? 'merchant.hide' : visibility === 'shown' ? 'merchant.show' : 'merchant.update';
      await insertAuditEntry(tx, { actorId, action, targetType: 'merchant', targetId: id, details: auditJson({ changes: diff }), now });
      return { ok: true as const, value: { changed, visibility } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return slugTaken(input.slug);
    throw error;
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

// Directory management for moderators: merchants, categories, agents, sponsorships and
// owner statements. Each change is one transaction with its audit row; a change that
// alters which evidence is public (hiding or showing a merchant, deactivating or activating
// an agent) recomputes the affected summaries in that same transaction, under the per-merchant
// lock that moderation decisions take, so the public API changes at once and nothing races.
import { z } from 'zod';
import type { Prisma, PrismaClient, Tx } from '../../db/client.js';
import { OUTCOMES, TASKS } from '../aggregation/constants.js';
import { evidenceChanged, lockMerchants } from '../aggregation/evidence.js';
import { insertAuditEntry } from '../moderation/moderation.repository.js';
import { formatDate, zodFieldErrors, type FieldErrors, type FormResult, type FormValues, UUID } from './admin.http.js';


export class NotFoundError extends Error {
  constructor(readonly what: string) {
    super(`${what} not found`);
    this.name = 'NotFoundError';
  }
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SPONSORSHIP_PLACEMENTS = ['directory-top', 'category-top'] as const;
export const SPONSORSHIP_SOURCES = ['subscription', 'publisher_owned'] as const;
const OWNER_TEXT_MAX = 4000;
const DAY_MS = 24 * 60 * 60 * 1000;

/** A slug from a name: lower case ASCII letters and digits joined by single hyphens. */
export function slugify(name: string): string {
  return name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 100)
    .replace(/-+$/, '');
}

const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === 'P2002';

/** Field-by-field differences, for the audit log. */
function changes(before: Record<string, unknown>, after: Record<string, unknown>): Record<string, { from: unknown; to: unknown }> {
  const diff: Record<string, { from: unknown; to: unknown }> = {};
  for (const [key, to] of Object.entries(after)) {
    const from = before[key];
    const same = JSON.stringify(from instanceof Date ? from.toISOString() : from) === JSON.stringify(to instanceof Date ? to.toISOString() : to);
    if (!same) diff[key] = { from: from instanceof Date ? from.toISOString() : (from ?? null), to: to instanceof Date ? to.toISOString() : (to ?? null) };
  }
  return diff;
}

const json = (value: unknown) => JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;

const checkbox = z.preprocess((v) => v === 'on' || v === 'true' || v === '1', z.boolean());
const slugField = (what: string) =>
  z
    .string()
    .trim()
    .toLowerCase()
    .max(100, `The slug must be at most 100 characters`)
    .refine((s) => s === '' || SLUG_PATTERN.test(s), `Use lowercase letters, digits and single hyphens for the ${what} slug, such as "garden-shop"`);
const nameField = (max: number, missing: string) =>
  z.string().trim().min(1, missing).max(max, `At most ${max} characters`);

// ------------------------------------------------------------------------------------------
// Merchants

const regionNames = new Intl.DisplayNames(['en'], { type: 'region' });

/** "de, FR global" -> ["DE", "FR", "GLOBAL"]; unknown codes are errors. */
function parseRegions(input: string, ctx: z.RefinementCtx): string[] {
  const codes = [...new Set(input.split(/[\s,;]+/).filter(Boolean).map((c) => c.toUpperCase()))];
  for (const code of codes) {
    const name = code === 'GLOBAL' ? code : /^[A-Z]{2}$/.test(code) ? regionNames.of(code) : undefined;
    if (!name || (name === code && code !== 'GLOBAL') || name === 'Unknown Region') {
      ctx.addIssue({ code: 'custom', message: `"${code}" is not a country code: use two-letter codes such as DE or US, or GLOBAL` });
      return [];
    }
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
  categoryId: z.string().regex(UUID, 'Choose a category'),
  serviceRegions: z.string().max(1000, 'Too long').default('').transform(parseRegions),
  isPublic: checkbox,
  approvedCanonical: checkbox,
});

export type MerchantInput = z.infer<typeof merchantForm>;

const merchantAuditFields = (m: {
  name: string;
  slug: string;
  website: string;
  category: string;
  categoryId: string | null;
  serviceRegions: string[];
  isPublic: boolean;
  approvedCanonical: boolean;
}) => ({
  name: m.name,
  slug: m.slug,
  website: m.website,
  category: m.category,
  categoryId: m.categoryId,
  serviceRegions: m.serviceRegions,
  isPublic: m.isPublic,
  approvedCanonical: m.approvedCanonical,
});

async function merchantConflicts(tx: Tx, input: MerchantInput, exceptId: string | null): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const [taken, category] = await Promise.all([
    tx.merchant.findFirst({ where: { slug: input.slug, ...(exceptId ? { id: { not: exceptId } } : {}) }, select: { name: true } }),
    tx.category.findUnique({ where: { id: input.categoryId }, select: { id: true } }),
  ]);
  if (taken) errors.slug = `The slug "${input.slug}" is already used by ${taken.name}`;
  if (!category) errors.categoryId = 'Choose one of the listed categories';
  return errors;
}

export async function createMerchant(
  prisma: PrismaClient,
  actorId: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ id: string }>> {
  const parsed = merchantForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = { ...parsed.data, slug: parsed.data.slug || slugify(parsed.data.name) };
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug: the name gives none' } };
  try {
    return await prisma.$transaction(async (tx) => {
      const errors = await merchantConflicts(tx, input, null);
      if (Object.keys(errors).length) return { ok: false as const, errors };
      const category = await tx.category.findUniqueOrThrow({ where: { id: input.categoryId }, select: { name: true } });
      const created = await tx.merchant.create({
        data: { ...input, category: category.name, createdAt: now, updatedAt: now },
      });
      await insertAuditEntry(tx, {
        actorId,
        action: 'merchant.create',
        targetType: 'merchant',
        targetId: created.id,
        details: json(merchantAuditFields(created)),
        now,
      });
      return { ok: true as const, value: { id: created.id } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, errors: { slug: `The slug "${input.slug}" is already used` } };
    throw error;
  }
}

export async function updateMerchant(
  prisma: PrismaClient,
  actorId: string,
  id: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ changed: string[]; visibility: 'hidden' | 'shown' | null }>> {
  const parsed = merchantForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = parsed.data;
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug' } };
  try {
    return await prisma.$transaction(async (tx) => {
      // The merchant row is the lock its summary recomputations take (moderation decisions too).
      await lockMerchants(tx, [id]);
      const before = await tx.merchant.findUnique({ where: { id } });
      if (!before) throw new NotFoundError('Merchant');
      const errors = await merchantConflicts(tx, input, id);
      if (Object.keys(errors).length) return { ok: false as const, errors };
      // The original category string stays until the category itself changes.
      const category =
        before.categoryId === input.categoryId
          ? before.category
          : (await tx.category.findUniqueOrThrow({ where: { id: input.categoryId }, select: { name: true } })).name;
      const after = { ...input, category };
      const diff = changes(merchantAuditFields(before), merchantAuditFields(after));
      const changed = Object.keys(diff);
      if (changed.length === 0) return { ok: true as const, value: { changed, visibility: null } };
      await tx.merchant.update({ where: { id }, data: { ...after, updatedAt: now } });
      const visibility = before.isPublic === input.isPublic ? null : input.isPublic ? ('shown' as const) : ('hidden' as const);
      // Hidden: its summaries go and its reports leave every public output in this commit;
      // shown again: they come back from its approved reports.
      if (visibility) await evidenceChanged(tx, { merchantIds: [id] }, now);
      await insertAuditEntry(tx, {
        actorId,
        action: visibility === 'hidden' ? 'merchant.hide' : visibility === 'shown' ? 'merchant.show' : 'merchant.update',
        targetType: 'merchant',
        targetId: id,
        details: json({ changes: diff }),
        now,
      });
      return { ok: true as const, value: { changed, visibility } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, errors: { slug: `The slug "${input.slug}" is already used` } };
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

// ------------------------------------------------------------------------------------------
// Sponsorship (advertising, never evidence; the billing id stays on the admin side)

const dateField = (missing: string) =>
  z
    .string()
    .trim()
    .min(1, missing)
    .regex(/^\d{4}-\d{2}-\d{2}$/, 'Enter a date as YYYY-MM-DD')
    .refine((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'Not a real date');

const sponsorshipForm = z
  .object({
    source: z.enum(SPONSORSHIP_SOURCES, 'Choose a paid subscription or an authorised publisher-owned promotion'),
    placement: z.enum(SPONSORSHIP_PLACEMENTS, 'Choose a placement'),
    disclosure: nameField(500, 'The disclosure text is required: sponsored listings are always labelled as advertising'),
    startsOn: dateField('Enter the first day'),
    endsOn: z.string().trim().default('').pipe(z.union([z.literal(''), dateField('')])),
    billingId: z.string().trim().max(200, 'At most 200 characters').default(''),
  })
  .superRefine((f, ctx) => {
    if (f.endsOn && f.endsOn < f.startsOn) ctx.addIssue({ code: 'custom', path: ['endsOn'], message: 'The last day cannot be before the first day' });
  });

/** Dates are UTC days: it runs from the first day's start to the end of the last day. */
const sponsorshipDates = (f: { startsOn: string; endsOn: string }) => ({
  startsAt: new Date(`${f.startsOn}T00:00:00Z`),
  endsAt: f.endsOn ? new Date(new Date(`${f.endsOn}T00:00:00Z`).getTime() + DAY_MS) : null,
});

export function sponsorshipFormValues(s: {
  source: string;
  placement: string;
  disclosure: string;
  startsAt: Date;
  endsAt: Date | null;
  billingId: string | null;
}): FormValues {
  return {
    source: s.source,
    placement: s.placement,
    disclosure: s.disclosure,
    startsOn: formatDate(s.startsAt),
    endsOn: s.endsAt ? formatDate(new Date(s.endsAt.getTime() - DAY_MS)) : '',
    billingId: s.billingId ?? '',
  };
}

export async function setSponsorship(
  prisma: PrismaClient,
  actorId: string,
  merchantId: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ created: boolean }>> {
  const parsed = sponsorshipForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const f = parsed.data;
  const data = {
    source: f.source,
    placement: f.placement,
    disclosure: f.disclosure,
    ...sponsorshipDates(f),
    billingId: f.billingId || null,
  };
  return prisma.$transaction(async (tx) => {
    await lockMerchants(tx, [merchantId]);
    const merchant = await tx.merchant.findUnique({ where: { id: merchantId }, select: { sponsorship: true } });
    if (!merchant) throw new NotFoundError('Merchant');
    const before = merchant.sponsorship;
    const diff = changes(before ?? {}, data);
    if (before && Object.keys(diff).length === 0) return { ok: true as const, value: { created: false } };
    await tx.sponsorship.upsert({
      where: { merchantId },
      create: { merchantId, ...data, createdAt: now, updatedAt: now },
      update: { ...data, updatedAt: now },
    });
    await insertAuditEntry(tx, {
      actorId,
      action: before ? 'sponsorship.update' : 'sponsorship.create',
      targetType: 'merchant',
      targetId: merchantId,
      details: json({ changes: diff }),
      now,
    });
    return { ok: true as const, value: { created: !before } };
  });
}

export async function removeSponsorship(prisma: PrismaClient, actorId: string, merchantId: string, now: Date): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.sponsorship.findUnique({ where: { merchantId } });
    if (!before) return false;
    await tx.sponsorship.delete({ where: { merchantId } });
    await insertAuditEntry(tx, {
      actorId,
      action: 'sponsorship.remove',
      targetType: 'merchant',
      targetId: merchantId,
      details: json({ removed: sponsorshipFormValues(before) }),
      now,
    });
    return true;
  });
}

// ------------------------------------------------------------------------------------------
// Owner statements (attributed to the owner; never counted in any score)

const ownerForm = (today: string) =>
  z.object({
    statement: nameField(OWNER_TEXT_MAX, 'Enter the owner’s statement'),
    declaredOn: dateField('Enter the date the owner made the statement').refine(
      (d) => d <= today,
      'The declaration date cannot be in the future',
    ),
    ownershipEvidence: z.string().trim().max(OWNER_TEXT_MAX, `At most ${OWNER_TEXT_MAX} characters`).default(''),
    ...Object.fromEntries(
      TASKS.map((task) => [
        `claim_${task}`,
        z.preprocess((v) => (v === '' ? undefined : v), z.enum(OUTCOMES, 'Choose one of the listed outcomes').optional()),
      ]),
    ),
  });

export function ownerStatementFormValues(s: {
  statement: string;
  taskClaims: unknown;
  declaredAt: Date;
  ownershipEvidence: string | null;
}): FormValues {
  const claims = (s.taskClaims ?? {}) as Record<string, string>;
  return {
    statement: s.statement,
    declaredOn: formatDate(s.declaredAt),
    ownershipEvidence: s.ownershipEvidence ?? '',
    ...Object.fromEntries(TASKS.filter((t) => claims[t]).map((t) => [`claim_${t}`, claims[t]!])),
  };
}

export async function setOwnerStatement(
  prisma: PrismaClient,
  actorId: string,
  merchantId: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ created: boolean }>> {
  const parsed = ownerForm(formatDate(now)).safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const f = parsed.data as Record<string, string | undefined> & { statement: string; declaredOn: string; ownershipEvidence: string };
  const taskClaims: Record<string, string> = {};
  for (const task of TASKS) {
    const claim = f[`claim_${task}`];
    if (claim) taskClaims[task] = claim;
  }
  const data = {
    statement: f.statement,
    taskClaims,
    declaredAt: new Date(`${f.declaredOn}T00:00:00Z`),
    ownershipEvidence: f.ownershipEvidence || null,
  };
  return prisma.$transaction(async (tx) => {
    await lockMerchants(tx, [merchantId]);
    const merchant = await tx.merchant.findUnique({ where: { id: merchantId }, select: { ownerStatement: true } });
    if (!merchant) throw new NotFoundError('Merchant');
    const before = merchant.ownerStatement;
    const diff = changes(before ?? {}, data);
    if (before && Object.keys(diff).length === 0) return { ok: true as const, value: { created: false } };
    await tx.ownerStatement.upsert({
      where: { merchantId },
      create: { merchantId, ...data, createdAt: now, updatedAt: now },
      update: { ...data, updatedAt: now },
    });
    await insertAuditEntry(tx, {
      actorId,
      action: before ? 'owner-statement.update' : 'owner-statement.create',
      targetType: 'merchant',
      targetId: merchantId,
      details: json({ changes: diff }),
      now,
    });
    return { ok: true as const, value: { created: !before } };
  });
}

export async function removeOwnerStatement(prisma: PrismaClient, actorId: string, merchantId: string, now: Date): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const before = await tx.ownerStatement.findUnique({ where: { merchantId } });
    if (!before) return false;
    await tx.ownerStatement.delete({ where: { merchantId } });
    await insertAuditEntry(tx, {
      actorId,
      action: 'owner-statement.remove',
      targetType: 'merchant',
      targetId: merchantId,
      details: json({ removed: ownerStatementFormValues(before) }),
      now,
    });
    return true;
  });
}

// ------------------------------------------------------------------------------------------
// Categories and their legacy names

const categoryForm = z.object({
  name: nameField(100, 'Enter the category’s name'),
  slug: slugField('category'),
});

const legacyForm = z.object({
  name: nameField(100, 'Enter the legacy name'),
  slug: slugField('legacy'),
});

/**
 * A name or slug may name one category only, across canonical and legacy names (the public
 * category filter matches both, case-insensitively). Names of `ownCategoryId` itself are fine.
 */
async function categoryNameConflicts(
  tx: Tx,
  name: string,
  slug: string,
  own: { categoryId: string | null; legacyId: string | null },
): Promise<FieldErrors> {
  const errors: FieldErrors = {};
  const [categories, legacy] = await Promise.all([
    tx.$queryRaw<Array<{ id: string; name: string; slug: string }>>`
      SELECT id, name, slug FROM categories
       WHERE (lower(name) IN (lower(${name}), lower(${slug})) OR slug IN (lower(${name}), lower(${slug})))`,
    tx.$queryRaw<Array<{ id: string; name: string; slug: string; category_id: string; category_name: string }>>`
      SELECT l.id, l.name, l.slug, l.category_id, c.name AS category_name
        FROM category_legacy_names l JOIN categories c ON c.id = l.category_id
       WHERE (lower(l.name) IN (lower(${name}), lower(${slug})) OR l.slug IN (lower(${name}), lower(${slug})))`,
  ]);
  for (const c of categories) {
    if (c.id === own.categoryId) continue;
    if (c.name.toLowerCase() === name.toLowerCase() || c.slug === name.toLowerCase()) errors.name ??= `"${name}" already names the category ${c.name}`;
    if (c.slug === slug || c.name.toLowerCase() === slug) errors.slug ??= `The slug "${slug}" is already used by the category ${c.name}`;
  }
  for (const l of legacy) {
    if (l.id === own.legacyId) continue;
    // A category may take back one of its own legacy names; any other category may not.
    if (own.legacyId === null && l.category_id === own.categoryId) continue;
    if (l.name.toLowerCase() === name.toLowerCase() || l.slug === name.toLowerCase()) errors.name ??= `"${name}" is a legacy name of ${l.category_name}`;
    if (l.slug === slug || l.name.toLowerCase() === slug) errors.slug ??= `The slug "${slug}" is a legacy slug of ${l.category_name}`;
  }
  return errors;
}

export async function createCategory(
  prisma: PrismaClient,
  actorId: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ id: string }>> {
  const parsed = categoryForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = { name: parsed.data.name, slug: parsed.data.slug || slugify(parsed.data.name) };
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug: the name gives none' } };
  try {
    return await prisma.$transaction(async (tx) => {
      const errors = await categoryNameConflicts(tx, input.name, input.slug, { categoryId: null, legacyId: null });
      if (Object.keys(errors).length) return { ok: false as const, errors };
      const created = await tx.category.create({ data: { ...input, createdAt: now, updatedAt: now } });
      await insertAuditEntry(tx, { actorId, action: 'category.create', targetType: 'category', targetId: created.id, details: input, now });
      return { ok: true as const, value: { id: created.id } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, errors: { name: 'This name or slug is already used' } };
    throw error;
  }
}

/**
 * Renames a category. Its previous name and slug become a legacy name, so the category
 * filter keeps accepting them and the old category page URL redirects to the new one
 * (unless a legacy name of this category already holds them).
 */
export async function updateCategory(
  prisma: PrismaClient,
  actorId: string,
  id: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ changed: boolean; keptLegacy: boolean }>> {
  const parsed = categoryForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = parsed.data;
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug' } };
  try {
    return await prisma.$transaction(async (tx) => {
      const before = await tx.category.findUnique({ where: { id } });
      if (!before) throw new NotFoundError('Category');
      const errors = await categoryNameConflicts(tx, input.name, input.slug, { categoryId: id, legacyId: null });
      if (Object.keys(errors).length) return { ok: false as const, errors };
      if (before.name === input.name && before.slug === input.slug) return { ok: true as const, value: { changed: false, keptLegacy: false } };
      // A legacy name equal to the new canonical name or slug is now redundant.
      await tx.categoryLegacyName.deleteMany({
        where: { categoryId: id, OR: [{ slug: input.slug }, { name: { equals: input.name, mode: 'insensitive' } }] },
      });
      const existing = await tx.categoryLegacyName.findFirst({
        where: { OR: [{ slug: before.slug }, { name: { equals: before.name, mode: 'insensitive' } }] },
      });
      const keepLegacy = !existing && before.slug !== input.slug;
      if (keepLegacy) await tx.categoryLegacyName.create({ data: { name: before.name, slug: before.slug, categoryId: id, createdAt: now } });
      await tx.category.update({ where: { id }, data: { ...input, updatedAt: now } });
      await insertAuditEntry(tx, {
        actorId,
        action: 'category.update',
        targetType: 'category',
        targetId: id,
        details: json({ changes: changes(before, input), keptAsLegacyName: keepLegacy ? { name: before.name, slug: before.slug } : null }),
        now,
      });
      return { ok: true as const, value: { changed: true, keptLegacy: keepLegacy } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, errors: { name: 'This name or slug is already used' } };
    throw error;
  }
}

export async function addLegacyName(
  prisma: PrismaClient,
  actorId: string,
  categoryId: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ id: string }>> {
  const parsed = legacyForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = { name: parsed.data.name, slug: parsed.data.slug || slugify(parsed.data.name) };
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug: the name gives none' } };
  try {
    return await prisma.$transaction(async (tx) => {
      const category = await tx.category.findUnique({ where: { id: categoryId } });
      if (!category) throw new NotFoundError('Category');
      const errors = await categoryNameConflicts(tx, input.name, input.slug, { categoryId: null, legacyId: null });
      if (Object.keys(errors).length) return { ok: false as const, errors };
      const created = await tx.categoryLegacyName.create({ data: { ...input, categoryId, createdAt: now } });
      await insertAuditEntry(tx, { actorId, action: 'category.legacy-name.add', targetType: 'category', targetId: categoryId, details: input, now });
      return { ok: true as const, value: { id: created.id } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, errors: { name: 'This legacy name or slug is already used' } };
    throw error;
  }
}

export async function removeLegacyName(prisma: PrismaClient, actorId: string, categoryId: string, legacyId: string, now: Date): Promise<boolean> {
  return prisma.$transaction(async (tx) => {
    const legacy = await tx.categoryLegacyName.findFirst({ where: { id: legacyId, categoryId } });
    if (!legacy) return false;
    await tx.categoryLegacyName.delete({ where: { id: legacyId } });
    await insertAuditEntry(tx, {
      actorId,
      action: 'category.legacy-name.remove',
      targetType: 'category',
      targetId: categoryId,
      details: { name: legacy.name, slug: legacy.slug },
      now,
    });
    return true;
  });
}

// ------------------------------------------------------------------------------------------
// Agents

const agentFields = {
  name: nameField(100, 'Enter the agent’s name'),
  vendor: nameField(100, 'Enter the vendor'),
  description: z.string().trim().max(1000, 'At most 1000 characters').default(''),
};
const newAgentForm = z.object({
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, 'Enter a slug: it is the agent’s name in paths and filters')
    .max(100, 'At most 100 characters')
    .regex(SLUG_PATTERN, 'Use lowercase letters, digits and single hyphens, such as "shop-agent"'),
  ...agentFields,
});
const agentForm = z.object(agentFields);

async function agentNameTaken(tx: Tx, name: string, exceptId: string | null): Promise<boolean> {
  const other = await tx.agent.findFirst({
    where: { name: { equals: name, mode: 'insensitive' }, ...(exceptId ? { id: { not: exceptId } } : {}) },
    select: { id: true },
  });
  return other !== null;
}

export async function createAgent(prisma: PrismaClient, actorId: string, values: FormValues, now: Date): Promise<FormResult<{ id: string }>> {
  const parsed = newAgentForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = { ...parsed.data, description: parsed.data.description || null };
  try {
    return await prisma.$transaction(async (tx) => {
      const errors: FieldErrors = {};
      if (await tx.agent.findUnique({ where: { slug: input.slug }, select: { id: true } })) errors.slug = `The slug "${input.slug}" is already used by another agent`;
      if (await agentNameTaken(tx, input.name, null)) errors.name = `Another agent is already called "${input.name}"`;
      if (Object.keys(errors).length) return { ok: false as const, errors };
      const created = await tx.agent.create({ data: { ...input, active: true, createdAt: now, updatedAt: now } });
      await insertAuditEntry(tx, { actorId, action: 'agent.create', targetType: 'agent', targetId: created.id, details: json(input), now });
      return { ok: true as const, value: { id: created.id } };
    });
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, errors: { slug: `The slug "${input.slug}" is already used` } };
    throw error;
  }
}

/** Renames an agent (name, vendor, description). Its slug stays: clients use it in paths. */
export async function updateAgent(
  prisma: PrismaClient,
  actorId: string,
  id: string,
  values: FormValues,
  now: Date,
): Promise<FormResult<{ changed: boolean }>> {
  const parsed = agentForm.safeParse(values);
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) };
  const input = { ...parsed.data, description: parsed.data.description || null };
  return prisma.$transaction(async (tx) => {
    const before = await tx.agent.findUnique({ where: { id } });
    if (!before) throw new NotFoundError('Agent');
    if (await agentNameTaken(tx, input.name, id)) return { ok: false as const, errors: { name: `Another agent is already called "${input.name}"` } };
    const diff = changes(before, input);
    if (Object.keys(diff).length === 0) return { ok: true as const, value: { changed: false } };
    await tx.agent.update({ where: { id }, data: { ...input, updatedAt: now } });
    await insertAuditEntry(tx, { actorId, action: 'agent.update', targetType: 'agent', targetId: id, details: json({ changes: diff }), now });
    return { ok: true as const, value: { changed: true } };
  });
}

/**
 * Activates or deactivates an agent. Inactive: it leaves the agent registry, its summaries
 * and reports leave every public output in this commit, and its keys are refused for new
 * submissions (the bearer check reads agents.active). Active again: its summaries are
 * recomputed from its approved reports.
 */
export async function setAgentActive(
  prisma: PrismaClient,
  actorId: string,
  id: string,
  active: boolean,
  now: Date,
): Promise<{ changed: boolean; merchants: number }> {
  return prisma.$transaction(
    async (tx) => {
      const updated = await tx.$queryRaw<Array<{ id: string }>>`
        UPDATE agents SET active = ${active}, updated_at = ${now}
         WHERE id = ${id}::uuid AND active = ${!active} RETURNING id`;
      if (updated.length === 0) {
        if (!(await tx.agent.findUnique({ where: { id }, select: { id: true } }))) throw new NotFoundError('Agent');
        return { changed: false, merchants: 0 };
      }
      // Every merchant with a report of this agent in any status, not only approved ones: a
      // moderator approving one of them right now holds (or waits for) that merchant's lock,
      // so either its recompute finishes before ours starts and ours sees its decision, or it
      // waits for our commit and then sees the agent's new state. Either way no summary of an
      // inactive agent survives, and none of an active one is missing.
      const rows = await tx.$queryRaw<Array<{ merchant_id: string }>>`
        SELECT DISTINCT merchant_id FROM reports WHERE agent_id = ${id}::uuid
        UNION
        SELECT merchant_id FROM merchant_agent_summaries WHERE agent_id = ${id}::uuid`;
      const merchantIds = rows.map((r) => r.merchant_id);
      await evidenceChanged(tx, { pairs: merchantIds.map((merchantId) => ({ merchantId, agentId: id })) }, now);
      await insertAuditEntry(tx, {
        actorId,
        action: active ? 'agent.activate' : 'agent.deactivate',
        targetType: 'agent',
        targetId: id,
        details: { merchantsRecomputed: merchantIds.length },
        now,
      });
      return { changed: true, merchants: merchantIds.length };
    },
    { timeout: 60_000 },
  );
}

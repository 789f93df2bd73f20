// Moderators adding and renaming categories and their legacy names. A name or slug names one
// category only, across canonical and legacy names, because the public category filter
// matches both. Each change is one transaction with its audit row.
import { z } from 'zod';
import type { Tx } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { notFound } from '../../errors.js';
import { fieldRefusal, nameField, slugField } from '../../forms.js';
import { slugify } from '../../text.js';
import { type ChangeContext, auditChanges, auditJson, insertAuditEntry } from '../audit/audit.repository.js';
import {
  categoryNameRivals,
  deleteLegacyName,
  dropCoveredLegacyNames,
  findCategory,
  findLegacyName,
  insertCategory,
  insertLegacyName,
  legacyNameHolding,
  updateCategoryRow,
} from './catalog-admin.repository.js';

/** The category form: a name and a slug (empty: made from the name, when adding one). */
export const categoryForm = z.object({ name: nameField(100, 'Enter the category’s name'), slug: slugField('category') });
/** The form adding a legacy name to a category (an empty slug is made from the name). */
export const legacyForm = z.object({ name: nameField(100, 'Enter the legacy name'), slug: slugField('legacy') });
type NameInput = z.output<typeof categoryForm>;

const categoryNotFound = () => notFound('There is no category at this address.', 'Category not found');

/**
 * What stops `name` and `slug` from naming a category: another category or legacy name that
 * holds either, refused as the form's fields. Names of `own.categoryId` itself are fine, and a
 * category may take back one of its own legacy names.
 */
async function refuseNameConflicts(tx: Tx, name: string, slug: string, own: { categoryId: string | null }): Promise<void> {
  const errors: { name?: string; slug?: string } = {};
  const { categories, legacy } = await categoryNameRivals(tx, name, slug);
  const lowerName = name.toLowerCase();
  for (const c of categories) {
    if (c.id === own.categoryId) continue;
    if (c.name.toLowerCase() === lowerName || c.slug === lowerName) errors.name ??= `"${name}" already names the category ${c.name}`;
    if (c.slug === slug || c.name.toLowerCase() === slug) errors.slug ??= `The slug "${slug}" is already used by the category ${c.name}`;
  }
  for (const l of legacy) {
    if (l.category_id === own.categoryId) continue;
    if (l.name.toLowerCase() === lowerName || l.slug === lowerName) errors.name ??= `"${name}" is a legacy name of ${l.category_name}`;
    if (l.slug === slug || l.name.toLowerCase() === slug) errors.slug ??= `The slug "${slug}" is a legacy slug of ${l.category_name}`;
  }
  const refused = Object.entries(errors).map(([field, detail]) => ({ field, rule: `${field}Taken`, detail }));
  if (refused.length) throw fieldRefusal(...refused);
}

/** A name and slug as posted, the slug made from the name when left empty. */
function withSlug(input: NameInput): NameInput {
  const slug = input.slug || slugify(input.name);
  if (!slug) throw fieldRefusal({ field: 'slug', rule: 'slugMissing', detail: 'Enter a slug: the name gives none' });
  return { name: input.name, slug };
}

/** Runs a write; a unique violation that slipped past the checks (a race) refuses the form's name. */
async function refusingDuplicates<T>(work: () => Promise<T>, message: string): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) throw fieldRefusal({ field: 'name', rule: 'nameTaken', detail: message });
    throw error;
  }
}

export async function createCategory(change: ChangeContext, posted: NameInput): Promise<{ id: string }> {
  const { prisma, actorId, now } = change;
  const input = withSlug(posted);
  return refusingDuplicates(
    () =>
      prisma.$transaction(async (tx) => {
        await refuseNameConflicts(tx, input.name, input.slug, { categoryId: null });
        const created = await insertCategory(tx, input, now);
        await insertAuditEntry(tx, { actorId, action: 'category.create', targetType: 'category', targetId: created.id, details: input, now });
        return { id: created.id };
      }),
    'This name or slug is already used',
  );
}

/**
 * Renames a category. Its previous name and slug become a legacy name, so the category
 * filter keeps accepting them and the old category page URL redirects to the new one
 * (unless a legacy name already holds them).
 */
export async function updateCategory(change: ChangeContext, id: string, input: NameInput): Promise<{ changed: boolean; keptLegacy: boolean }> {
  const { prisma, actorId, now } = change;
  if (!input.slug) throw fieldRefusal({ field: 'slug', rule: 'slugMissing', detail: 'Enter a slug' });
  return refusingDuplicates(
    () =>
      prisma.$transaction(async (tx) => {
        const before = await findCategory(tx, id);
        if (!before) throw categoryNotFound();
        await refuseNameConflicts(tx, input.name, input.slug, { categoryId: id });
        if (before.name === input.name && before.slug === input.slug) return { changed: false, keptLegacy: false };
        await dropCoveredLegacyNames(tx, id, input);
        const keepLegacy = before.slug !== input.slug && !(await legacyNameHolding(tx, before));
        if (keepLegacy) await insertLegacyName(tx, id, { name: before.name, slug: before.slug }, now);
        await updateCategoryRow(tx, id, input, now);
        await insertAuditEntry(tx, {
          actorId,
          action: 'category.update',
          targetType: 'category',
          targetId: id,
          details: auditJson({ changes: auditChanges(before, input), keptAsLegacyName: keepLegacy ? { name: before.name, slug: before.slug } : null }),
          now,
        });
        return { changed: true, keptLegacy: keepLegacy };
      }),
    'This name or slug is already used',
  );
}

export async function addLegacyName(change: ChangeContext, categoryId: string, posted: z.output<typeof legacyForm>): Promise<{ id: string }> {
  const { prisma, actorId, now } = change;
  const input = withSlug(posted);
  return refusingDuplicates(
    () =>
      prisma.$transaction(async (tx) => {
        if (!(await findCategory(tx, categoryId))) throw categoryNotFound();
        await refuseNameConflicts(tx, input.name, input.slug, { categoryId: null });
        const created = await insertLegacyName(tx, categoryId, input, now);
        await insertAuditEntry(tx, { actorId, action: 'category.legacy-name.add', targetType: 'category', targetId: categoryId, details: input, now });
        return { id: created.id };
      }),
    'This legacy name or slug is already used',
  );
}

/** Removes a legacy name; false when the category has no such legacy name. */
export async function removeLegacyName(change: ChangeContext, categoryId: string, legacyId: string): Promise<boolean> {
  const { prisma, actorId, now } = change;
  return prisma.$transaction(async (tx) => {
    const legacy = await findLegacyName(tx, categoryId, legacyId);
    if (!legacy) return false;
    await deleteLegacyName(tx, legacyId);
    const details = { name: legacy.name, slug: legacy.slug };
    await insertAuditEntry(tx, { actorId, action: 'category.legacy-name.remove', targetType: 'category', targetId: categoryId, details, now });
    return true;
  });
}

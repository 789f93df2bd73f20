// Moderators adding and renaming categories and their legacy names. A name or slug names one
// category only, across canonical and legacy names, because the public category filter
// matches both. Each change is one transaction with its audit row.
import { z } from 'zod';
import type { Tx } from '../../db/client.js';
import { isUniqueViolation } from '../../db/errors.js';
import { notFound } from '../../errors.js';
import { nameField, parseForm, slugField, type FieldErrors, type FormResult, type FormValues } from '../../forms.js';
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

const categoryForm = z.object({ name: nameField(100, 'Enter the category’s name'), slug: slugField('category') });
const legacyForm = z.object({ name: nameField(100, 'Enter the legacy name'), slug: slugField('legacy') });

const categoryNotFound = () => notFound('There is no category at this address.', 'Category not found');

/**
 * What stops `name` and `slug` from naming a category: another category or legacy name that
 * holds either. Names of `own.categoryId` itself are fine, and a category may take back one of
 * its own legacy names.
 */
async function nameConflicts(tx: Tx, name: string, slug: string, own: { categoryId: string | null }): Promise<FieldErrors> {
  const errors: FieldErrors = {};
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
  return errors;
}

/** A posted name and slug, the slug made from the name when left empty. */
function namedInput(schema: typeof categoryForm, values: FormValues): FormResult<{ name: string; slug: string }> {
  const parsed = parseForm(schema, values);
  if (!parsed.ok) return parsed;
  const input = { name: parsed.value.name, slug: parsed.value.slug || slugify(parsed.value.name) };
  return input.slug ? { ok: true, value: input } : { ok: false, errors: { slug: 'Enter a slug: the name gives none' } };
}

/** Runs a write; a unique violation that slipped past the checks (a race) is a form error. */
async function refusingDuplicates<T>(work: () => Promise<FormResult<T>>, message: string): Promise<FormResult<T>> {
  try {
    return await work();
  } catch (error) {
    if (isUniqueViolation(error)) return { ok: false, errors: { name: message } };
    throw error;
  }
}

export async function createCategory(change: ChangeContext, values: FormValues): Promise<FormResult<{ id: string }>> {
  const { prisma, actorId, now } = change;
  const parsed = namedInput(categoryForm, values);
  if (!parsed.ok) return parsed;
  const input = parsed.value;
  return refusingDuplicates(
    () =>
      prisma.$transaction(async (tx) => {
        const errors = await nameConflicts(tx, input.name, input.slug, { categoryId: null });
        if (Object.keys(errors).length) return { ok: false as const, errors };
        const created = await insertCategory(tx, input, now);
        await insertAuditEntry(tx, { actorId, action: 'category.create', targetType: 'category', targetId: created.id, details: input, now });
        return { ok: true as const, value: { id: created.id } };
      }),
    'This name or slug is already used',
  );
}

/**
 * Renames a category. Its previous name and slug become a legacy name, so the category
 * filter keeps accepting them and the old category page URL redirects to the new one
 * (unless a legacy name already holds them).
 */
export async function updateCategory(
  change: ChangeContext,
  id: string,
  values: FormValues,
): Promise<FormResult<{ changed: boolean; keptLegacy: boolean }>> {
  const { prisma, actorId, now } = change;
  const parsed = parseForm(categoryForm, values);
  if (!parsed.ok) return parsed;
  const input = parsed.value;
  if (!input.slug) return { ok: false, errors: { slug: 'Enter a slug' } };
  return refusingDuplicates<{ changed: boolean; keptLegacy: boolean }>(
    () =>
      prisma.$transaction(async (tx) => {
        const before = await findCategory(tx, id);
        if (!before) throw categoryNotFound();
        const errors = await nameConflicts(tx, input.name, input.slug, { categoryId: id });
        if (Object.keys(errors).length) return { ok: false as const, errors };
        if (before.name === input.name && before.slug === input.slug) return { ok: true as const, value: { changed: false, keptLegacy: false } };
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
        return { ok: true as const, value: { changed: true, keptLegacy: keepLegacy } };
      }),
    'This name or slug is already used',
  );
}

export async function addLegacyName(change: ChangeContext, categoryId: string, values: FormValues): Promise<FormResult<{ id: string }>> {
  const { prisma, actorId, now } = change;
  const parsed = namedInput(legacyForm, values);
  if (!parsed.ok) return parsed;
  const input = parsed.value;
  return refusingDuplicates(
    () =>
      prisma.$transaction(async (tx) => {
        if (!(await findCategory(tx, categoryId))) throw categoryNotFound();
        const errors = await nameConflicts(tx, input.name, input.slug, { categoryId: null });
        if (Object.keys(errors).length) return { ok: false as const, errors };
        const created = await insertLegacyName(tx, categoryId, input, now);
        await insertAuditEntry(tx, { actorId, action: 'category.legacy-name.add', targetType: 'category', targetId: categoryId, details: input, now });
        return { ok: true as const, value: { id: created.id } };
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

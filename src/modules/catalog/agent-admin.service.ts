// Moderators adding, renaming, activating and deactivating agents. Each change is one
// transaction with its audit row; activation changes which evidence is public, so it goes
// through the evidence write path and the public directory changes exactly when it commits.
import { z } from 'zod';
import { isUniqueViolation } from '../../db/errors.js';
import { notFound } from '../../errors.js';
import { fieldRefusal, nameField, optionalText } from '../../forms.js';
import { evidenceChanged } from '../aggregation/evidence.js';
import { type ChangeContext, auditChanges, auditJson, insertAuditEntry } from '../audit/audit.repository.js';
import { SLUG_PATTERN } from '../../text.js';
import { websiteProblem } from '../merchants/merchant-admin.service.js';
import { agentNameTaken, agentWithSlug, findAgent, flipAgentActive, insertAgent, merchantsOfAgent, updateAgentRow } from './catalog-admin.repository.js';

const agentFields = {
  name: nameField(100, 'Enter the agent’s name'),
  vendor: nameField(100, 'Enter the vendor'),
  description: optionalText(1000, { multiline: true }).transform((d) => d || null),
  // What a vendor's claim of the agent proves control of (issue 34); optional.
  vendorWebsite: z
    .string()
    .trim()
    .max(2048, 'At most 2048 characters')
    .default('')
    .superRefine((value, ctx) => {
      const problem = value ? websiteProblem(value) : null;
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .transform((w) => w || null),
};
/** The form adding an agent: its slug and its fields. */
export const newAgentForm = z.object({
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .min(1, 'Enter a slug: it is the agent’s name in paths and filters')
    .max(100, 'At most 100 characters')
    .regex(SLUG_PATTERN, 'Use lowercase letters, digits and single hyphens, such as "shop-agent"'),
  ...agentFields,
});
/** The form editing an agent: its fields (the slug stays). */
export const agentForm = z.object(agentFields);

const agentNotFound = () => notFound('There is no agent at this address.', 'Agent not found');
const nameTaken = (name: string) => ({ field: 'name', rule: 'nameTaken', detail: `Another agent is already called "${name}"` });

export async function createAgent(change: ChangeContext, input: z.output<typeof newAgentForm>): Promise<{ id: string }> {
  const { prisma, actorId, now } = change;
  try {
    return await prisma.$transaction(async (tx) => {
      const taken: Parameters<typeof fieldRefusal> = [];
      if (await agentWithSlug(tx, input.slug)) taken.push({ field: 'slug', rule: 'slugTaken', detail: `The slug "${input.slug}" is already used by another agent` });
      if (await agentNameTaken(tx, input.name, null)) taken.push(nameTaken(input.name));
      if (taken.length) throw fieldRefusal(...taken);
      const created = await insertAgent(tx, input, now);
      await insertAuditEntry(tx, { actorId, action: 'agent.create', targetType: 'agent', targetId: created.id, details: auditJson(input), now });
      return { id: created.id };
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw fieldRefusal({ field: 'slug', rule: 'slugTaken', detail: `The slug "${input.slug}" is already used` });
    throw error;
  }
}

/** Renames an agent (name, vendor, description). Its slug stays: clients use it in paths. */
export async function updateAgent(change: ChangeContext, id: string, input: z.output<typeof agentForm>): Promise<{ changed: boolean }> {
  const { prisma, actorId, now } = change;
  return prisma.$transaction(async (tx) => {
    const before = await findAgent(tx, id);
    if (!before) throw agentNotFound();
    if (await agentNameTaken(tx, input.name, id)) throw fieldRefusal(nameTaken(input.name));
    const diff = auditChanges(before, input);
    if (Object.keys(diff).length === 0) return { changed: false };
    await updateAgentRow(tx, id, input, now);
    await insertAuditEntry(tx, { actorId, action: 'agent.update', targetType: 'agent', targetId: id, details: auditJson({ changes: diff }), now });
    return { changed: true };
  });
}

/**
 * Activates or deactivates an agent. Inactive: it leaves the agent registry, its summaries
 * and reports leave every public output in this commit, and its keys are refused for new
 * submissions (the bearer check reads agents.active). Active again: its summaries are
 * recomputed from its approved reports.
 */
export async function setAgentActive(change: ChangeContext, id: string, active: boolean): Promise<{ changed: boolean; merchants: number }> {
  const { prisma, actorId, now } = change;
  return prisma.$transaction(
    async (tx) => {
      if (!(await flipAgentActive(tx, id, active, now))) {
        if (!(await findAgent(tx, id))) throw agentNotFound();
        return { changed: false, merchants: 0 };
      }
      // Every merchant with a report of this agent in any status, not only approved ones: a
      // moderator approving one of them right now holds (or waits for) that merchant's lock,
      // so either its recompute finishes before ours starts and ours sees its decision, or it
      // waits for our commit and then sees the agent's new state. Either way no summary of an
      // inactive agent survives, and none of an active one is missing.
      const merchantIds = await merchantsOfAgent(tx, id);
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

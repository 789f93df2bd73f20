// Accounts, keys and targets for contribution tests.
import type { TestApp } from './app.js';
import { issueKey } from '../../src/modules/keys/keys.service.js';

export async function targets(t: TestApp) {
  const merchants = await t.db.prisma.merchant.findMany({ where: { isPublic: true }, orderBy: { name: 'asc' }, take: 30 });
  const agents = await t.db.prisma.agent.findMany({ where: { active: true }, orderBy: { slug: 'asc' } });
  const hidden = await t.db.prisma.merchant.findFirstOrThrow({ where: { isPublic: false } });
  const inactive = await t.db.prisma.agent.findFirstOrThrow({ where: { active: false } });
  return { merchants, agents, hidden, inactive };
}

/** An account with a bearer key for `agentId`; the key is returned once, as on the profile page. */
export async function accountWithKey(t: TestApp, email: string, agentId: string) {
  const account = await t.db.prisma.account.upsert({ where: { email }, create: { email }, update: {} });
  const { key } = await issueKey(t.db.prisma, { accountId: account.id, agentId }, t.clock.now());
  return { account, key, auth: { Authorization: `Bearer ${key}` } };
}

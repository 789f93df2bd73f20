// The agent registry's answer (GET /api/v1/agents, the MCP tool list_agents): the directory's
// Agent record plus the versions seen in approved reports, so an agent can find and name its own.
import { z } from 'zod';
import { Agent, ListEnvelope, VendorFields } from '../directory/schemas.js';
import { MAX_AGENT_VERSIONS } from './catalog.repository.js';

const AgentVersion = z
  .object({
    version: z.string().describe("The agentVersion as reports give it, trimmed: the vendor's own string."),
    reportCount: z.int().min(1).describe('Public approved reports naming this version.'),
    lastSeenAt: z.iso.datetime({ offset: true }).describe('The newest of those reports: its test date (midnight UTC), else its report date.'),
  })
  .meta({ id: 'AgentVersion' });

const RegistryAgent = Agent.extend({
  ...VendorFields,
  versions: z
    .array(AgentVersion)
    .max(MAX_AGENT_VERSIONS)
    .describe(
      `The versions seen in this agent's approved public reports, newest first (by lastSeenAt, then reportCount), at most ${MAX_AGENT_VERSIONS}; empty when no report named one. Observed only: vendors do not declare versions here. Name yours as your vendor does, or leave agentVersion out.`,
    ),
}).meta({ id: 'RegistryAgent', description: 'An active agent of the registry.' });

export const RegistryAgentList = ListEnvelope(RegistryAgent, 'RegistryAgentList');

// The MCP prompts: a person's two usual requests, each as the flow of tools in order and the
// questions to ask the person first. They name tools and fields, never define a task, outcome,
// stage or failure reason: those are in the contribution-schema resource (and
// get_contribution_schema), which each prompt points to. server.ts registers them.
import type { GetPromptResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { SLUG_PATTERN } from '../text.js';

export interface DirectoryPrompt {
  name: string;
  title: string;
  description: string;
  /** The arguments (strings, as MCP prompts take them), checked by the SDK before text() runs. */
  args?: Record<string, z.ZodOptional<z.ZodString>>;
  text(args: Record<string, string | undefined>, baseUrl: string): string;
}

const SCHEMA_POINTER = (baseUrl: string) =>
  `Definitions (tasks, outcomes, stages, failure reasons) and rules: the contribution-schema resource (${baseUrl}/api/v1/contribution-schema) or get_contribution_schema; read them before you fill in a field.`;

const reportTestRun: DirectoryPrompt = {
  name: 'report-test-run',
  title: 'Report a test run',
  description: 'Report one test run of your agent at one merchant: the questions to ask the person, then the tools in order.',
  text: (_args, baseUrl) =>
    [
      'Help me report a test run of an AI agent at an online shop to the Agent-Compatibility Directory.',
      'First ask me, one at a time, what you cannot see in the run itself:',
      '1. Which merchant (name or website)?',
      '2. What was tried, task by task, and how far did each get?',
      '3. Did I step in at any point (for example, typed a one-time code or solved a human check)?',
      '4. Was the run stopped on purpose at payment?',
      '5. Which region did the agent run from (where its browser was, which may be its vendor\'s servers, not where I am)?',
      '6. Which agent version, if known?',
      'Then: whoami (your agentId); search_merchants or get_queue for the merchant\'s id (adId); validate_report (a dry run: how the report would be read, nothing written) until it is accepted, and show me how it reads; submit_report only after I confirm and after checking that the report holds no personal or payment data (privacy true).',
      'To change it later: get_my_report, change what differs, check it with validate_report, then update_report with its version.',
      SCHEMA_POINTER(baseUrl),
      'Report only what was actually tried; leave out what you do not know.',
    ].join('\n'),
};

const findCheckout: DirectoryPrompt = {
  name: 'find-checkout',
  title: 'Find where my agent gets through checkout',
  description: 'The merchants where an agent is reported to get through checkout, furthest and surest first.',
  args: {
    agent: z
      .string()
      .max(100)
      .regex(SLUG_PATTERN, 'an agent slug: lowercase letters, digits and single hyphens')
      .optional()
      .describe('The agent\'s slug, as list_agents gives it; left out, the prompt asks which agent.'),
  },
  text: ({ agent }, baseUrl) =>
    [
      'Find the online shops where an AI agent gets through checkout, from the Agent-Compatibility Directory.',
      agent
        ? `The agent is "${agent}".`
        : 'First ask me which agent (and version, if it matters to me); list_agents gives the slugs.',
      'Ask me too: which region I shop from, and any category or shop I care about.',
      `Then: list_agent_merchants with agent ${agent ? `"${agent}"` : '<slug>'}, reaches "CHECKOUT", sort "reach", view "compact" (add region or category when given); ` +
        'the next page while I want more; get_merchant for the evidence behind one shop, get_report for one report.',
      'Tell me for each shop how far the agent gets, where it stops and why, and how sure the directory is (confidence, number and age of reports).',
      'These are community reports, not guarantees; sponsored listings come first and are advertising, never evidence.',
      SCHEMA_POINTER(baseUrl),
    ].join('\n'),
};

export const PROMPTS: readonly DirectoryPrompt[] = [reportTestRun, findCheckout];

/** A prompt's answer: its text, as one user message. */
export const promptResult = (prompt: DirectoryPrompt, args: Record<string, string | undefined>, baseUrl: string): GetPromptResult => ({
  description: prompt.description,
  messages: [{ role: 'user', content: { type: 'text', text: prompt.text(args, baseUrl) } }],
});

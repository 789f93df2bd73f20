// What an MCP client reads before it calls anything: the size of tools/list (issue 35: it had
// grown to 190 KB, most of it output schemas), the compact output schemas (shared shapes once,
// resolved by the SDK's own validator) and the prompts. The server is the real one, reached
// through the SDK's Client over an in-memory transport; nothing here touches the database.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { JSONRPCMessage, Tool as ListedTool } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { createLogger } from '../../src/logger.js';
import { definitionTexts } from '../../src/modules/reports/definitions.js';
import { jsonSchemaOf } from '../../src/mcp/schemas.js';
import { directoryMcpServer } from '../../src/mcp/server.js';
import type { ToolServices } from '../../src/mcp/tool-kit.js';
import { TEST_BASE_URL } from '../setup/app.js';
import { lintTool } from './schema-portability.js';
import { repeatedSentences } from '../setup/sentences.js';

/**
 * The bound on all output schemas together, as tools/list carries them (the SDK adds $schema
 * and additionalProperties to each). Issue 35 asks ≤ 40 KB for the whole of tools/list; this
 * part was about 133 KB.
 */
const OUTPUT_SCHEMAS_MAX_BYTES = 25 * 1024;
/** Issue 35: tools/list fits a small client's context. */
const TOOLS_LIST_MAX_BYTES = 40 * 1024;
const PROMPT_MAX_BYTES = 2048;

const bytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value));

describe('MCP listing', () => {
  let client: Client;
  /** Every JSON-RPC message the client received, as it arrived. */
  const received: JSONRPCMessage[] = [];

  beforeAll(async () => {
    // No tool is called: the services are never reached.
    const services = { baseUrl: TEST_BASE_URL } as unknown as ToolServices;
    const server = directoryMcpServer(services, { key: null, counted: [], onUsage: () => {}, log: createLogger('silent') });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    client = new Client({ name: 'mcp-listing-test', version: '1.0.0' });
    await client.connect(clientSide);
    const deliver = clientSide.onmessage!;
    clientSide.onmessage = (message, extra) => {
      received.push(message);
      deliver(message, extra);
    };
  });
  afterAll(() => client.close());

  /** tools/list as the client received it: the whole JSON-RPC result. */
  async function toolsList(): Promise<{ tools: ListedTool[] }> {
    await client.listTools();
    const answer = received.findLast((message) => 'result' in message && Array.isArray((message.result as { tools?: unknown }).tools));
    return (answer as unknown as { result: { tools: ListedTool[] } }).result;
  }

  describe('tools/list', () => {
    it('keeps the output schemas of all tools together within their bound, each one still declared', async () => {
      const result = await toolsList();
      const outputs = result.tools.map((tool) => bytes(tool.outputSchema));
      for (const tool of result.tools) expect(tool.outputSchema, tool.name).toMatchObject({ type: 'object', properties: expect.any(Object) });
      const total = outputs.reduce((a, b) => a + b, 0);
      expect(total).toBeLessThanOrEqual(OUTPUT_SCHEMAS_MAX_BYTES);
    });

    it('is at most 40 KB as a client receives it (it was 189,963 bytes), every tool with an output schema', async () => {
      const result = await toolsList();
      expect(result.tools.every((tool) => tool.outputSchema !== undefined)).toBe(true);
      expect(bytes(result)).toBeLessThanOrEqual(TOOLS_LIST_MAX_BYTES);
    });

    it('says no sentence of more than 12 words twice', async () => {
      const texts: string[] = [];
      const collect = (node: unknown): void => {
        if (typeof node === 'string') texts.push(node);
        else if (Array.isArray(node)) node.forEach(collect);
        else if (node && typeof node === 'object') for (const [key, value] of Object.entries(node)) if (key !== 'enum' && key !== 'pattern') collect(value);
      };
      collect(await toolsList());
      expect(repeatedSentences(texts)).toEqual([]);
    });

    it('writes no prose in output schemas, and each shared shape once', async () => {
      const { tools } = await toolsList();
      const prose: string[] = [];
      /** Every keyword of every schema node (a property's name is not a keyword). */
      const walk = (node: unknown, path: string): void => {
        if (Array.isArray(node)) return node.forEach((item, i) => walk(item, `${path}/${i}`));
        if (typeof node !== 'object' || node === null) return;
        for (const [key, value] of Object.entries(node)) {
          if (['description', 'title', 'examples'].includes(key)) prose.push(`${path}/${key}`);
          if (key === 'properties' || key === 'definitions') for (const [name, schema] of Object.entries(value as object)) walk(schema, `${path}/${key}/${name}`);
          else if (typeof value === 'object') walk(value, `${path}/${key}`);
        }
      };
      for (const tool of tools) {
        walk(tool.outputSchema, tool.name);
        const text = JSON.stringify(tool.outputSchema);
        expect(text, tool.name).not.toContain(String(Number.MAX_SAFE_INTEGER));
        expect(text, tool.name).not.toContain('$defs');
      }
      expect(prose).toEqual([]);
      // whoami's limits (the key's and the call's) are one shape: declared once, referred to twice.
      const whoami = tools.find((tool) => tool.name === 'whoami')!.outputSchema as { definitions?: Record<string, unknown>; properties: Record<string, unknown> };
      expect(Object.keys(whoami.definitions ?? {})).toEqual(['limits']);
      expect(whoami.properties.limits).toEqual({ $ref: '#/definitions/limits' });
      expect(tools.flatMap((tool) => lintTool(tool))).toEqual([]);
    });

    it('hoists a repeated shape into definitions that the SDK\'s validator resolves, and arguments stay whole', () => {
      const place = z.object({ street: z.string().describe('The street.'), city: z.string(), country: z.string().length(2), postcode: z.string().nullable(), lines: z.array(z.string()) });
      const order = z.object({ data: z.object({ id: z.uuid() }), from: place, to: place, via: z.array(place) });
      const schema = jsonSchemaOf(order, 'output') as { definitions: Record<string, { properties: Record<string, unknown> }>; properties: Record<string, unknown> };
      expect(Object.keys(schema.definitions)).toEqual(['from']);
      expect(schema.definitions.from!.properties.street).toEqual({ type: 'string' });
      expect(schema.properties.to).toEqual({ $ref: '#/definitions/from' });
      expect(schema.properties.via).toEqual({ type: 'array', items: { $ref: '#/definitions/from' } });
      expect(lintTool({ name: 'order', inputSchema: { type: 'object', properties: {} }, outputSchema: schema })).toEqual([]);
      const validate = new AjvJsonSchemaValidator().getValidator(schema as Parameters<AjvJsonSchemaValidator['getValidator']>[0]);
      const here = { street: 'Main 1', city: 'Bern', country: 'CH', postcode: null, lines: [] };
      const data = { id: '00000000-0000-7000-8000-000000000001' };
      expect(validate({ data, from: here, to: here, via: [here] }).valid).toBe(true);
      expect(validate({ data, from: here, to: { ...here, country: 'CHE' }, via: [] }).valid).toBe(false);
      expect(JSON.stringify(jsonSchemaOf(order, 'input'))).not.toContain('$ref');
    });
  });

  describe('prompts', () => {
    it('lists report-test-run and find-checkout, find-checkout with an optional agent', async () => {
      const { prompts } = await client.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(['report-test-run', 'find-checkout']);
      expect(prompts.find((prompt) => prompt.name === 'find-checkout')!.arguments).toEqual([
        expect.objectContaining({ name: 'agent', required: false }),
      ]);
      expect(client.getInstructions()).toContain('report-test-run');
    });

    it('report-test-run: the questions to ask and the tools in order, short, pointing to the definitions', async () => {
      const { messages } = await client.getPrompt({ name: 'report-test-run' });
      expect(messages).toHaveLength(1);
      expect(messages[0]!.role).toBe('user');
      const text = (messages[0]!.content as { text: string }).text;
      for (const asked of ['Which merchant', 'What was tried', 'one-time code', 'stopped on purpose at payment', 'region', 'agent version']) expect(text).toContain(asked);
      const order = ['whoami', 'validate_report', 'submit_report'].map((tool) => text.indexOf(tool));
      expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
      expect(text).toContain(`${TEST_BASE_URL}/api/v1/contribution-schema`);
      for (const definition of definitionTexts()) expect(text).not.toContain(definition);
      expect(Buffer.byteLength(text)).toBeLessThan(PROMPT_MAX_BYTES);
    });

    it('find-checkout: with an agent, the call to make; without, the question which agent', async () => {
      const named = (await client.getPrompt({ name: 'find-checkout', arguments: { agent: 'example-agent' } })).messages[0]!.content as { text: string };
      expect(named.text).toContain('list_agent_merchants with agent "example-agent", reaches "CHECKOUT", sort "reach"');
      expect(named.text).not.toContain('which agent');
      const open = (await client.getPrompt({ name: 'find-checkout' })).messages[0]!.content as { text: string };
      expect(open.text).toContain('ask me which agent');
      expect(open.text).toContain('list_agents');
      for (const text of [named.text, open.text]) expect(Buffer.byteLength(text)).toBeLessThan(PROMPT_MAX_BYTES);
    });

    it('refuses an argument that is not an agent slug, and an unknown prompt', async () => {
      await expect(client.getPrompt({ name: 'find-checkout', arguments: { agent: 'Not a slug"; drop' } })).rejects.toThrow(/Invalid arguments for prompt find-checkout/);
      await expect(client.getPrompt({ name: 'find-checkout', arguments: { agent: 'a'.repeat(101) } })).rejects.toThrow(/Invalid arguments/);
      await expect(client.getPrompt({ name: 'no-such-prompt' })).rejects.toThrow(/not found/);
    });
  });
});

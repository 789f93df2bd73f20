// The MCP tools: each is one endpoint of the JSON API, reached through the same zod schema and
// the same service call, answering the API's representation in one envelope (schemas.ts):
// { data, …, methodology, disclaimer }, plus `limits` for the tools that need a key. A tool
// parses its own arguments with the API's schema, so an invalid argument is the API's
// `validation-failed` problem, naming the same parameters (query-like tools) or JSON pointers
// (report bodies). server.ts registers them and turns every refusal into a problem tool result.
// Each rule is said once in tools/list: the key and error rules in whoami's description, the
// report rules in submit_report's, the filters in search_merchants'; the other tools point there.
// The definitions of every key are in the contribution schema (get_contribution_schema, the
// resource contribution-schema), never repeated here.
import { PRIVATE_TOOLS } from './private-tools.js';
import { PUBLIC_TOOLS } from './public-tools.js';
import type { Tool } from './tool-kit.js';

/** Every tool, in the order tools/list gives them. */
export const TOOLS: readonly Tool[] = [...PUBLIC_TOOLS, ...PRIVATE_TOOLS];

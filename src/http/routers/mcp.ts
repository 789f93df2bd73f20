// The MCP endpoint (/mcp): placeholder until the MCP server lands; answers 404 as before.
import { Router } from 'express';
import type { PrismaClient } from '../../db/client.js';
import type { Clock } from '../../clock.js';
import type { Config } from '../../config/env.js';
import type { Quota } from '../../modules/limits/quota.js';
import type { ApiGuards } from '../middleware/guards.js';
import type { Logger } from '../../logger.js';

export interface McpDeps {
  baseUrl: string;
  prisma: PrismaClient;
  clock: Clock;
  limits: Config['limits'];
  quotas: { browser: Quota; agent: Quota };
  guards: ApiGuards;
  logger: Logger;
  /** Signs pagination cursors (the same codecs as the automation API). */
  cursorSecret: string;
}

export function mcpRouter(_deps: McpDeps): Router {
  return Router();
}

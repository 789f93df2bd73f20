// The MCP endpoint (/mcp): the directory's tools for MCP clients over Streamable HTTP, stateless
// (one McpServer and transport per POST, no session, JSON answers rather than an event stream),
// behind the JSON API's own guards and budgets: the public limit on every request; with an
// Authorization header the private gate of the API (address budget, key check, account budget:
// an invalid key is an HTTP 401 with WWW-Authenticate). The handler and its tools: src/mcp/.
import compression from 'compression';
import cors from 'cors';
import express, { Router, type RequestHandler } from 'express';
import type pg from 'pg';
import type { PrismaClient } from '../db/client.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config/env.js';
import type { Quota } from '../modules/limits/quota.js';
import type { CountCache } from '../modules/directory/counts.js';
import type { ApiGuards } from '../web/middleware/guards.js';
import type { Logger } from '../logger.js';
import type { AutomationDeps } from '../modules/automation/automation.service.js';
import type { SubmissionDeps } from '../modules/reports/submissions.service.js';
import { MCP_MAX_BODY_BYTES, mcpHandler } from './server.js';
import type { ToolServices } from './tool-kit.js';
import { hasBearer } from '../web/middleware/bearer.js';
import { apiNotFound, problemErrorHandler } from '../web/middleware/errors.js';
import { refuseKeyInQuery } from '../web/middleware/key-in-query.js';
import { cacheControl } from '../web/cache-control.js';

export interface McpDeps {
  baseUrl: string;
  prisma: PrismaClient;
  pool: pg.Pool;
  clock: Clock;
  limits: Config['limits'];
  quotas: { browser: Quota; agent: Quota };
  guards: ApiGuards;
  logger: Logger;
  /** The services the automation API uses too, built once by app.ts: a cursor from either door works in the other. */
  submissions: SubmissionDeps;
  automation: AutomationDeps;
  /** The directory lists' totals, cached per directory version: the same cache as the API's. */
  counts: CountCache;
}

// Answers concern the caller's key (or nobody's) and are never stored by a shared cache.
const privateResponse: RequestHandler = (_req, res, next) => {
  cacheControl(res, 'no-store').set('Vary', 'Authorization');
  next();
};

/**
 * Browser-based MCP clients may call from any origin, as they may call the API: nothing here
 * rides on cookies, and a browser never sends a bearer key on its own.
 */
const crossOrigin = cors({
  origin: '*',
  methods: ['POST'],
  allowedHeaders: ['Authorization', 'Content-Type', 'Accept', 'Mcp-Protocol-Version', 'Mcp-Session-Id', 'Last-Event-ID'],
  exposedHeaders: ['Mcp-Session-Id', 'Retry-After', 'RateLimit', 'RateLimit-Policy', 'WWW-Authenticate'],
  maxAge: 600,
});

const jsonRpcError = (code: number, message: string) => ({ jsonrpc: '2.0', error: { code, message }, id: null });

/**
 * One JSON-RPC message per request: a batch would run many tool calls for one count of the
 * rate limits (MCP itself dropped batches in its 2025-06-18 revision). An empty batch is an
 * invalid request (JSON-RPC 2.0 section 6), not a batch of nothing to accept with 202.
 */
const oneMessage: RequestHandler = (req, res, next) => {
  if (!Array.isArray(req.body) || req.body.length === 1) {
    next();
    return;
  }
  res
    .status(400)
    .json(
      jsonRpcError(
        -32600,
        req.body.length === 0
          ? 'Invalid Request: an empty batch. Send one JSON-RPC message per request.'
          : 'Batches are not accepted: send one JSON-RPC message per request.',
      ),
    );
};

const isPlainObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);
const kindOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`);

/**
 * A request's params, and a tool call's arguments, must be objects: the SDK's own check answered
 * null, an array or a string with -32603 (internal error) and its schema library's raw output.
 * JSON-RPC calls these invalid params (-32602), said here in words, answered to the request's id.
 */
const objectParams: RequestHandler = (req, res, next) => {
  const message: unknown = Array.isArray(req.body) ? req.body[0] : req.body;
  if (!isPlainObject(message) || typeof message.method !== 'string' || !('id' in message)) return next();
  const id = typeof message.id === 'string' || typeof message.id === 'number' ? message.id : null;
  const refuse = (text: string) => res.status(200).json({ jsonrpc: '2.0', id, error: { code: -32602, message: `Invalid params: ${text}` } });
  const params = message.params;
  if (params !== undefined && !isPlainObject(params)) return refuse(`params must be an object, not ${kindOf(params)}.`);
  if (message.method !== 'tools/call') return next();
  if (typeof params?.name !== 'string') return refuse('name must be the name of a tool (a string; tools/list lists them).');
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) {
    return refuse(`arguments must be an object of the tool's arguments (or left out), not ${kindOf(args)}.`);
  }
  next();
};

/** Stateless: no event stream to open (GET) and no session to end (DELETE), as in the SDK's examples. */
const methodNotAllowed: RequestHandler = (_req, res) => {
  res
    .status(405)
    .set('Allow', 'POST')
    .json(jsonRpcError(-32000, 'Method not allowed: this MCP endpoint is stateless and takes POST only.'));
};

export function mcpRouter(deps: McpDeps): Router {
  const router = Router();
  const { prisma, baseUrl } = deps;
  const services: ToolServices = {
    prisma,
    pool: deps.pool,
    baseUrl,
    clock: deps.clock,
    limits: deps.limits,
    submissions: deps.submissions,
    automation: deps.automation,
    counts: deps.counts,
  };
  const { publicLimiter, privateGate } = deps.guards;
  // A router used as middleware runs its stack, then hands on to what follows.
  const viaKey = Router().use(...privateGate);
  // Any Authorization header makes the request a bearer request (never anonymous on a bad key).
  const keyIfSent: RequestHandler = (req, res, next) => (hasBearer(req) ? viaKey(req, res, next) : next());

  router.use(crossOrigin, privateResponse, refuseKeyInQuery);
  router.post(
    '/',
    publicLimiter,
    keyIfSent,
    // Bodies are read after the guards, as on the private API.
    express.json({ limit: MCP_MAX_BODY_BYTES, type: 'application/json', strict: true }),
    oneMessage,
    objectParams,
    compression(),
    mcpHandler(services),
  );
  router.all('/', methodNotAllowed);
  router.use(apiNotFound);
  router.use(problemErrorHandler());
  return router;
}

// The whole application over a fresh test database, with a clock the test controls.
import { decisionNoticesSent } from '../../src/modules/moderation/decision-notices.js';
import { mkdtempSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import path from 'node:path';
import type { Express } from 'express';
import { inject } from 'vitest';
import { createApp } from '../../src/app.js';
import { loadConfig, type Config } from '../../src/config/env.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { fixedClock } from '../../src/clock.js';
import type { Mailer } from '../../src/mail/mailer.js';
import { responseChecker } from './openapi-check.js';
import { createTestDatabase, type TestDatabase } from './database.js';
import { watchDirectoryVersion, type DirectoryVersions } from '../../src/modules/directory/version.js';

export const TEST_BASE_URL = 'http://directory.test';

export interface TestApp {
  app: Express;
  db: TestDatabase;
  config: Config;
  clock: ReturnType<typeof fixedClock>;
  logger: Logger;
  versions: DirectoryVersions;
  /** API answers that do not match the OpenAPI document; close() fails when there are any. */
  responseViolations: string[];
  close(): Promise<void>;
}

/** A fresh directory inside the run's scratch directory (removed when the run ends). */
export const scratchDataDir = (prefix = 'data-') => mkdtempSync(path.join(inject('scratchDir'), prefix));

export function testConfig(overrides: Record<string, string> = {}): Config {
  return loadConfig({
    NODE_ENV: 'test',
    BASE_URL: TEST_BASE_URL,
    DATA_DIR: scratchDataDir(),
    SESSION_SECRET: 'test-session-secret-that-is-long-enough-0123456789',
    LOG_LEVEL: 'silent',
    // Suites make many requests from one address; limit tests set their own values.
    LIMIT_PUBLIC_PER_MINUTE: '1000000',
    LIMIT_PRIVATE_PER_MINUTE: '1000000',
    LIMIT_PRIVATE_ADDRESS_PER_MINUTE: '1000000',
    LIMIT_BROWSER_SUBMISSIONS_PER_HOUR: '1000000',
    LIMIT_AGENT_SUBMISSIONS_PER_HOUR: '1000000',
    LIMIT_SIGN_IN_PER_ADDRESS_PER_HOUR: '1000000',
    LIMIT_SIGN_IN_PER_CLIENT_PER_HOUR: '1000000',
    LIMIT_FAILED_KEYS_PER_ADDRESS_PER_MINUTE: '1000000',
    ...overrides,
  });
}

export async function createTestApp(
  options: {
    env?: Record<string, string>;
    now?: string;
    logger?: Logger;
    mailer?: Mailer;
    /** Check every API answer against the OpenAPI document (default true). */
    checkResponses?: boolean;
  } = {},
): Promise<TestApp> {
  const db = await createTestDatabase();
  const config = testConfig(options.env);
  const clock = fixedClock(options.now ?? '2026-11-22T12:00:00Z');
  const logger = options.logger ?? createLogger('silent');
  const versions = await watchDirectoryVersion(db.pool);
  const app = createApp({ config, logger, prisma: db.prisma, pool: db.pool, clock, versions, mailer: options.mailer });
  // Tests write to the database directly and read through the app at once. In production a
  // new directory version reaches the process within a millisecond or two (a notification);
  // here each request first makes sure it has, so no test depends on that race. The delay
  // itself is tested in test/http/response-cache.test.ts and test/process/multi-process.test.ts.
  type Handle = (req: IncomingMessage, res: ServerResponse, next?: unknown) => void;
  const inner = app as unknown as { handle: Handle };
  const handle = inner.handle.bind(app);
  // Every API answer is checked against the OpenAPI document (test/setup/openapi-check.ts).
  const checker = options.checkResponses === false ? undefined : responseChecker();
  const violations: string[] = [];
  inner.handle = (req, res, next) => {
    checker?.watch(req, res, violations);
    void versions.settle().finally(() => handle(req, res, next));
  };
  return {
    app,
    db,
    config,
    clock,
    logger,
    versions,
    responseViolations: violations,
    async close() {
      // Decision e-mails go out after the decision, in the background: none outlives the database.
      await decisionNoticesSent(db.prisma);
      await versions.close();
      await db.drop();
      if (violations.length > 0) {
        const unique = [...new Set(violations)];
        throw new Error(`${unique.length} API answers do not match the OpenAPI document:\n${unique.slice(0, 20).join('\n')}`);
      }
    },
  };
}

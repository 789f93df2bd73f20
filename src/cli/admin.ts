// Operator commands on the service's database (DATABASE_URL, or the embedded PostgreSQL
// under DATA_DIR, the one `npm start` uses):
//   npm run admin -- <command> [arguments]      (npm run admin -- --help lists them)
// The commands live in runAdmin, which tests call against a test database; main only opens
// the configured database.
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { parseArgs, type ParseArgsConfig } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../config/env.js';
import { createLogger } from '../logger.js';
import { createMailer } from '../mail/mailer.js';
import { registerDecisionNotices } from '../modules/moderation/decision-notices.js';
import type { PrismaClient } from '../db/client.js';
import { withDatabase } from '../db/database.js';
import { findOrCreateAccount } from '../modules/accounts/accounts.repository.js';
import { grantModerator, revokeModerator, suspendAccount, suspendForm, unsuspendAccount } from '../modules/accounts/accounts.service.js';
import { emailSchema } from '../modules/accounts/sign-in.service.js';
import { TASKS } from '../modules/aggregation/constants.js';
import { findActiveAgent } from '../modules/catalog/catalog.repository.js';
import { issueKey } from '../modules/keys/keys.service.js';
import {
  approveReport,
  parseRevision,
  rejectReport,
  ReportChangedError,
  reportForReview,
  revisionOf,
  withdrawReport,
} from '../modules/moderation/moderation.service.js';
import type { ReportDetail } from '../modules/moderation/queue.repository.js';
import { Refusal } from '../errors.js';
import { fieldErrorsOf, formInput } from '../forms.js';

export interface AdminDeps {
  prisma: PrismaClient;
  now: () => Date;
  out: (line: string) => void;
  err: (line: string) => void;
}

/** A bad command line, or a refusal the operator can fix by changing the arguments. */
export class AdminUsageError extends Error {
  override name = 'AdminUsageError';
}

type Options = NonNullable<ParseArgsConfig['options']>;
type Values = Record<string, string | boolean | undefined>;

interface Command {
  /** The command line, as --help shows it. */
  synopsis: string;
  args: readonly string[];
  options: Options;
  summary: string;
  /** Extra lines under the command in --help. */
  details?: readonly string[];
  run(deps: AdminDeps, positionals: readonly string[], values: Values): Promise<void>;
}

const stringOption = { type: 'string' } as const;

function email(value: string): string {
  const parsed = emailSchema.safeParse(value);
  if (!parsed.success) throw new AdminUsageError(`"${value}" is not an e-mail address`);
  return parsed.data;
}

const text = (values: Values, name: string): string | undefined => {
  const value = values[name];
  return typeof value === 'string' ? value : undefined;
};

/** A suspension's --reason as the suspension form reads it; a reason it refuses is a usage error, in its words. */
function suspendInput(reason: string) {
  try {
    return formInput(suspendForm, { reason });
  } catch (error) {
    const errors = error instanceof Refusal ? fieldErrorsOf(error) : null;
    if (!errors) throw error;
    throw new AdminUsageError(`suspend needs --reason: ${Object.values(errors).join('; ').toLowerCase()}`);
  }
}

/**
 * The revision a decision names (--revision, as `show` prints it): the operator decides on
 * what they reviewed, and the decision is refused if the report has changed since.
 */
function revisionArg(values: Values, command: string, reportId: string): Date {
  const value = text(values, 'revision');
  if (value === undefined || !value.trim()) {
    throw new AdminUsageError(`${command} needs --revision: the revision you reviewed, as \`npm run admin -- show ${reportId}\` prints it`);
  }
  const revision = parseRevision(value);
  if (!revision) throw new AdminUsageError(`--revision must be a revision as \`show\` prints it, such as 2026-11-22T12:00:00.000Z; got "${printable(value)}"`);
  return revision;
}

const REVISION_DETAIL = '--revision REV      required: the revision you reviewed (`show` prints it); refused if the report changed since';

// Stored text never holds control characters other than tabs and line breaks (text.ts), but
// what reaches an operator's terminal is made harmless here too.
// eslint-disable-next-line no-control-regex
const printable = (value: string): string => value.replace(/[\u0000-\u0008\u000B-\u001F\u007F-\u009F]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A report as `show` prints it: everything a decision is about, and the revision to name. */
function reportLines(report: ReportDetail): string[] {
  const line = (label: string, value: string | null | undefined) => `${label.padEnd(14)} ${value === null || value === undefined || value === '' ? '-' : printable(value)}`;
  const stored = (report.capabilityResults ?? {}) as Record<string, string>;
  const results = TASKS.filter((task) => stored[task]).map((task) => [task, stored[task]!] as const);
  const lines = [
    `report ${report.id}`,
    line('revision', revisionOf(report)),
    line('status', report.status),
    line('merchant', `${report.merchant.name} (${report.merchant.slug}, ${report.merchant.website})${report.merchant.isPublic ? '' : ' - hidden: its reports are not public'}`),
    line('agent', `${report.agent.name} (${report.agent.slug})${report.agent.active ? '' : ' - inactive: its reports are not public'}`),
    line('author', `${report.account.email} (${report.channel === 'AGENT_KEY' ? 'agent key' : 'browser form'})${report.account.suspended ? ' - suspended' : ''}`),
    line('submitted', report.createdAt.toISOString()),
    line('decided', report.moderatedAt ? `${report.moderatedAt.toISOString()} by ${report.moderatedBy?.email ?? 'the operator (CLI)'}` : null),
    line('outcome', `${report.outcome} (${report.outcomeSupplied ? 'given by the author' : 'worked out from the task results'})`),
    line('tasks', results.map(([task, outcome]) => `${task} ${outcome}`).join(', ')),
    line('stage', report.stage),
    line('failure', report.failureReason),
    line('tested on', report.testedAt ? report.testedAt.toISOString().slice(0, 10) : null),
    line('agent version', report.agentVersion),
    line('region', report.region),
    line('task', report.task),
    line('human help', report.humanIntervention === null ? null : report.humanIntervention ? 'yes' : 'no'),
    line('screenshots', `${report.evidence.length}${report.evidence.length ? ` (see them on /admin/reports/${report.id})` : ''}`),
    line('edited', report.revisions.length ? `${report.revisions.length} time(s) (earlier versions on /admin/reports/${report.id})` : 'never'),
    line('feedback', report.moderationFeedback),
    line('notes', report.moderationNotes),
  ];
  if (!report.experience) return [...lines, line('experience', null)];
  return [...lines, 'experience', ...report.experience.split(/\r\n|\r|\n/).map((l) => `  | ${printable(l)}`)];
}

const COMMANDS: Record<string, Command> = {
  'grant-moderator': {
    synopsis: 'grant-moderator <email>',
    args: ['<email>'],
    options: {},
    summary: 'give an existing account the MODERATOR role (an ADMIN stays ADMIN)',
    async run({ prisma, out, now }, [address]) {
      const { account, changed } = await grantModerator(prisma, { email: email(address!) }, now());
      out(changed ? `${account.email} is now a MODERATOR` : `${account.email} is already ${account.role} (no change)`);
    },
  },
  'revoke-moderator': {
    synopsis: 'revoke-moderator <email>',
    args: ['<email>'],
    options: {},
    summary: 'make a MODERATOR a USER again (refuses to demote an ADMIN)',
    async run({ prisma, out, now }, [address]) {
      const { account, changed } = await revokeModerator(prisma, { email: email(address!) }, now());
      out(changed ? `${account.email} is now a USER` : `${account.email} is not a moderator (no change)`);
    },
  },
  suspend: {
    synopsis: 'suspend <email> --reason TEXT',
    args: ['<email>'],
    options: { reason: stringOption },
    summary: 'suspend an account: its contributions and agent keys are refused (403)',
    details: ['--reason TEXT   required: why (kept with the account and in the audit log; private)'],
    async run({ prisma, out, now }, [address], values) {
      const { account, changed } = await suspendAccount(prisma, 'operator', { email: email(address!) }, suspendInput(text(values, 'reason') ?? ''), now());
      const reason = ` (reason: ${account.suspendedReason})`;
      out(changed ? `suspended ${account.email}${reason}` : `${account.email} is already suspended${reason} (no change)`);
    },
  },
  unsuspend: {
    synopsis: 'unsuspend <email>',
    args: ['<email>'],
    options: {},
    summary: 'lift a suspension',
    async run({ prisma, out, now }, [address]) {
      const { account, changed } = await unsuspendAccount(prisma, 'operator', { email: email(address!) }, now());
      out(changed ? `${account.email} is no longer suspended` : `${account.email} is not suspended (no change)`);
    },
  },
  'issue-key': {
    synopsis: 'issue-key <email> <agent-slug>',
    args: ['<email>', '<agent-slug>'],
    options: {},
    summary: 'issue an agent key for an account (created if needed) and an active agent',
    details: ['The key is printed once and stored only as a hash: copy it now.'],
    async run({ prisma, out, now }, [address, slug]) {
      const normalised = email(address!);
      // The agent first, so that a typo creates no account.
      const agent = await findActiveAgent(prisma, slug!.trim().toLowerCase());
      if (!agent) throw new AdminUsageError(`no active agent with slug "${slug}"`);
      const account = await findOrCreateAccount(prisma, normalised);
      if (account.suspended) throw new AdminUsageError(`${account.email} is suspended: unsuspend it before issuing a key`);
      const { key, record } = await issueKey(prisma, { accountId: account.id, agentId: agent.id }, now());
      out(`issued key ${record.displayPrefix}… (id ${record.id}) for ${account.email} and agent ${agent.slug}`);
      out(`Authorization: Bearer ${key}`);
      out(`expires ${record.expiresAt.toISOString()}; the key is shown only this once, store it now`);
    },
  },
  show: {
    synopsis: 'show <report-id>',
    args: ['<report-id>'],
    options: {},
    summary: 'print a report as a moderator reviews it, with the revision a decision must name',
    async run({ prisma, out }, [reportId]) {
      for (const line of reportLines(await reportForReview(prisma, reportId!))) out(line);
    },
  },
  approve: {
    synopsis: 'approve <report-id> --revision REV [--feedback TEXT]',
    args: ['<report-id>'],
    options: { revision: stringOption, feedback: stringOption },
    summary: 'approve a PENDING report at the revision you reviewed: it becomes public evidence at once',
    details: [REVISION_DETAIL, '--feedback TEXT     note shown to the author'],
    async run({ prisma, out, now }, [reportId], values) {
      const revision = revisionArg(values, 'approve', reportId!);
      const result = await approveReport(prisma, { reportId: reportId!, revision, actorId: null, feedback: text(values, 'feedback'), now: now() });
      out(`approved report ${result.id} at revision ${revision.toISOString()} (was ${result.fromStatus}); its revision is now ${result.revision.toISOString()}`);
    },
  },
  reject: {
    synopsis: 'reject <report-id> --revision REV --feedback TEXT [--note TEXT]',
    args: ['<report-id>'],
    options: { revision: stringOption, feedback: stringOption, note: stringOption },
    summary: 'reject a PENDING report at the revision you reviewed',
    details: [REVISION_DETAIL, '--feedback TEXT     required: why, shown to the author', '--note TEXT         private note for moderators'],
    async run({ prisma, out, now }, [reportId], values) {
      const feedback = text(values, 'feedback');
      if (!feedback?.trim()) throw new AdminUsageError('reject needs --feedback telling the author why');
      const revision = revisionArg(values, 'reject', reportId!);
      const result = await rejectReport(prisma, { reportId: reportId!, revision, actorId: null, feedback, note: text(values, 'note'), now: now() });
      out(`rejected report ${result.id} at revision ${revision.toISOString()} (was ${result.fromStatus}); its revision is now ${result.revision.toISOString()}`);
    },
  },
  withdraw: {
    synopsis: 'withdraw <report-id> --revision REV --reason TEXT [--to pending|rejected] [--note TEXT]',
    args: ['<report-id>'],
    options: { revision: stringOption, reason: stringOption, to: stringOption, note: stringOption },
    summary: 'take an APPROVED report off the directory (at the revision you reviewed)',
    details: [
      REVISION_DETAIL,
      '--reason TEXT       required: why, shown to the author',
      '--to pending|rejected   its new status (default pending: review it again)',
      '--note TEXT         private note for moderators',
    ],
    async run({ prisma, out, now }, [reportId], values) {
      const reason = text(values, 'reason');
      if (!reason?.trim()) throw new AdminUsageError('withdraw needs --reason telling the author why');
      const to = (text(values, 'to') ?? 'pending').toUpperCase();
      if (to !== 'PENDING' && to !== 'REJECTED') throw new AdminUsageError(`--to must be pending or rejected, got "${text(values, 'to')}"`);
      const revision = revisionArg(values, 'withdraw', reportId!);
      const result = await withdrawReport(prisma, { reportId: reportId!, revision, actorId: null, to, reason, note: text(values, 'note'), now: now() });
      out(`withdrew report ${result.id} at revision ${revision.toISOString()}: ${result.fromStatus} -> ${result.status}; its revision is now ${result.revision.toISOString()}`);
    },
  },
};

function commandUsage(command: Command): string[] {
  return [
    `  ${command.synopsis}`,
    `      ${command.summary}`,
    ...(command.details ?? []).map((line) => `      ${line}`),
  ];
}

export const ADMIN_USAGE = [
  'usage: npm run admin -- <command> [arguments]',
  '',
  'Operator commands on the configured database (DATABASE_URL, or the embedded one under DATA_DIR).',
  '',
  'commands:',
  ...Object.values(COMMANDS).flatMap((command) => commandUsage(command)),
  '',
  "  -h, --help   show this help (after a command: that command's help)",
].join('\n');

export type ParsedAdminCommand =
  | { kind: 'help'; text: string }
  | { kind: 'run'; name: string; command: Command; positionals: string[]; values: Values };

const oneLine = (error: unknown) => (error instanceof Error ? error.message : String(error)).replace(/\s*\n\s*/g, ' ');

/** Parses the command line without touching a database; throws AdminUsageError. */
export function parseAdminCommand(argv: readonly string[]): ParsedAdminCommand {
  const [name, ...rest] = argv;
  if (name === undefined) throw new AdminUsageError('name a command');
  if (name === '--help' || name === '-h' || name === 'help') return { kind: 'help', text: ADMIN_USAGE };
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new AdminUsageError(`unknown command "${name}"`);
  let parsed: { values: Values; positionals: string[] };
  try {
    parsed = parseArgs({
      args: rest,
      options: { ...command.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    // parseArgs messages can span lines; the error stays on one.
    throw new AdminUsageError(`${name}: ${oneLine(error)}`);
  }
  if (parsed.values.help) return { kind: 'help', text: ['usage: npm run admin --', ...commandUsage(command)].join('\n') };
  if (parsed.positionals.length !== command.args.length) {
    throw new AdminUsageError(`${name} takes ${command.args.join(' ')}, got ${parsed.positionals.length} argument(s)`);
  }
  return { kind: 'run', name, command, positionals: parsed.positionals, values: parsed.values };
}

/** The parsed command, or the exit code after printing help or a usage error. */
function parseOrAnswer(argv: readonly string[], out: AdminDeps['out'], err: AdminDeps['err']): ParsedAdminCommand & { kind: 'run' } | number {
  try {
    const parsed = parseAdminCommand(argv);
    if (parsed.kind === 'run') return parsed;
    out(parsed.text);
    return 0;
  } catch (error) {
    err(`admin: ${oneLine(error)} (see --help)`);
    return 1;
  }
}

/** The message of an error the operator can act on, or null for an unexpected failure. */
function knownErrorMessage(error: unknown): string | null {
  if (error instanceof AdminUsageError) return error.message;
  // A changed report: the service's words name the current revision; the operator also
  // learns how to review it before deciding again.
  if (error instanceof ReportChangedError) return `${error.init.detail ?? error.init.title} See it with: npm run admin -- show ${error.reportId}`;
  // A service's refusal (the moderation ones included) says what went wrong in words that
  // read well here too.
  if (error instanceof Refusal) return error.init.detail ?? error.init.title;
  return null;
}

/** Runs one command; returns the exit code. Every failure is one line on `err`. */
export async function runAdmin(argv: readonly string[], deps: AdminDeps): Promise<number> {
  const parsed = parseOrAnswer(argv, deps.out, deps.err);
  if (typeof parsed === 'number') return parsed;
  try {
    await parsed.command.run(deps, parsed.positionals, parsed.values);
    return 0;
  } catch (error) {
    const known = knownErrorMessage(error);
    deps.err(`admin ${parsed.name}: ${known ?? `failed: ${oneLine(error)}`}`);
    return 1;
  }
}

async function main(argv: string[]): Promise<number> {
  const out = (line: string) => console.log(line);
  const err = (line: string) => console.error(line);
  // Help and bad command lines need no database.
  const parsed = parseOrAnswer(argv, out, err);
  if (typeof parsed === 'number') return parsed;
  // With `npm start` running, the embedded database is shared with it, not restarted.
  let config: Config;
  try {
    config = loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    err(`admin: ${error.message}`);
    return 1;
  }
  const logger = createLogger(config.logLevel);
  const mailer = createMailer({ smtpUrl: config.smtpUrl, from: config.mailFrom, dataDir: config.dataDir, logger });
  return withDatabase(config, (db) => {
    // A decision made here queues the e-mail to the report's author with the decision, as one
    // made on the admin pages does; the running service sends it (a mail server that is down or
    // hangs never holds this command up).
    registerDecisionNotices(db.prisma, { mailer, baseUrl: config.baseUrl, logger, deliver: false });
    return runAdmin(argv, { prisma: db.prisma, now: () => new Date(), out, err });
  });
}

function invokedAsScript(): boolean {
  const script = process.argv[1];
  if (!script) return false;
  try {
    return import.meta.url === pathToFileURL(realpathSync(script)).href;
  } catch {
    return false;
  }
}

if (invokedAsScript()) {
  try {
    process.exitCode = await main(process.argv.slice(2));
  } catch (error) {
    console.error(`admin: failed: ${oneLine(error)}`);
    process.exitCode = 1;
  }
}

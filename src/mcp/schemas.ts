// The JSON Schemas the MCP tools publish in tools/list, made from the API's own zod schemas
// (arguments: the query and body schemas; answers: the response schemas of the OpenAPI
// document), and the one answer shape every tool gives.
//
// Every answer is an envelope around the HTTP API's representation of the resource:
//   { data, methodology, disclaimer }                             one resource
//   { data: [...], total, page, pageSize, methodology, disclaimer } a numbered page (public lists)
//   { data: [...], nextCursor, methodology, disclaimer }           a cursor page (queue, own reports)
// and, for every tool that needs a key, `limits`: each limit the call was counted against with
// what remains (what the HTTP API sends as RateLimit headers). For public reads the envelope is
// exactly the HTTP body; for the private ones `data` is the HTTP body's resource (its `items`,
// or the flat object without methodology and disclaimer).
//
// Portable JSON Schema (what strict function-calling clients and the MCP Inspector's
// portability check accept): every node has one `type` (never an array of types), objects
// list `properties`, arrays have `items`, no `$ref`. Arguments have no unions at all: an
// argument that may be null is documented as its type, and left out means "not given". Answers
// keep `null` where the API answers it, as `anyOf: [{ type: T }, { type: "null" }]`.
import { z } from 'zod';
import { OwnReport, Queue, QueueItem, ReplaceResult, ReportValidation, SubmissionResult, WhoAmI } from '../modules/automation/automation.schemas.js';
import { ContributionSchema } from '../modules/reports/contribution-schema.js';
import {
  AgentList,
  CategoryList,
  CompactMerchant,
  Merchant,
  MerchantDetail,
  MerchantList,
  Notice,
  ReportDetail,
  ReportList,
} from '../modules/directory/schemas.js';

export type JsonSchema = Record<string, unknown>;
type Io = 'input' | 'output';

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Formats whose pattern only repeats the format (zod writes both): the format says it portably. */
const SELF_DESCRIBING_FORMATS = new Set(['uuid', 'date', 'date-time', 'uri', 'email']);

/** Keywords whose value is one subschema, or a list of them. */
const SUBSCHEMA = ['items', 'additionalProperties', 'not', 'propertyNames'] as const;
const SUBSCHEMA_LISTS = ['anyOf', 'oneOf', 'allOf'] as const;

const isNull = (node: unknown) => isRecord(node) && node.type === 'null' && Object.keys(node).length === 1;

/**
 * One node made portable (see the header); `io` decides what becomes of null. Subschemas are
 * done first, so a node sees its children's final form.
 */
function portable(node: JsonSchema, io: Io): JsonSchema {
  let out: JsonSchema = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === '$schema' || key === 'id' || key === '$id') continue;
    if (key === 'properties' && isRecord(value)) {
      out.properties = Object.fromEntries(Object.entries(value).map(([name, schema]) => [name, isRecord(schema) ? portable(schema, io) : schema]));
    } else if ((SUBSCHEMA as readonly string[]).includes(key) && isRecord(value)) {
      out[key] = portable(value, io);
    } else if ((SUBSCHEMA_LISTS as readonly string[]).includes(key) && Array.isArray(value)) {
      out[key] = value.map((schema) => (isRecord(schema) ? portable(schema, io) : schema));
    } else {
      out[key] = value;
    }
  }

  // A type list ["boolean", "null"] is spelled as branches of one type each.
  if (Array.isArray(out.type)) {
    const { type, ...rest } = out as { type: string[] } & JsonSchema;
    const nonNull = type.filter((t) => t !== 'null');
    const branches = nonNull.map((t) => ({ type: t }));
    if (io === 'input' || nonNull.length === type.length) {
      out = nonNull.length === 1 ? { ...rest, type: nonNull[0] } : { ...rest, anyOf: branches };
    } else {
      const { description, ...constraints } = rest;
      out = {
        ...(description === undefined ? {} : { description }),
        anyOf: [...branches.map((branch) => ({ ...branch, ...constraints })), { type: 'null' }],
      };
    }
  }
  // An argument that may be null is documented as its type alone: leaving it out says the same.
  if (io === 'input' && Array.isArray(out.anyOf) && out.anyOf.some(isNull)) {
    const rest = out.anyOf.filter((branch) => !isNull(branch));
    const { anyOf: _anyOf, ...outer } = out;
    out = rest.length === 1 ? { ...(rest[0] as JsonSchema), ...outer } : { ...outer, anyOf: rest };
  }
  // A union of constants of one type is an enum.
  const consts = Array.isArray(out.anyOf) ? (out.anyOf as unknown[]) : [];
  const constType = isRecord(consts[0]) ? consts[0].type : undefined;
  if (consts.length > 1 && consts.every((b) => isRecord(b) && 'const' in b && b.type === constType && Object.keys(b).length === 2)) {
    const { anyOf: _anyOf, ...outer } = out;
    out = { type: constType, enum: consts.map((b) => (b as JsonSchema).const), ...outer };
  }
  // A record keyed by an enum (capabilityResults) lists its keys as properties.
  const keys = isRecord(out.propertyNames) ? out.propertyNames.enum : undefined;
  if (out.type === 'object' && Array.isArray(keys) && isRecord(out.additionalProperties)) {
    const { propertyNames: _names, additionalProperties: value, ...rest } = out;
    out = { ...rest, properties: Object.fromEntries(keys.map((k) => [String(k), value])), additionalProperties: false };
  }
  if (typeof out.format === 'string' && SELF_DESCRIBING_FORMATS.has(out.format)) delete out.pattern;
  if (out.type === 'object') {
    out.properties ??= {};
    // Answers are open to fields added later (a client validating them keeps working); an
    // "anything" member is spelled true, never as an empty schema.
    if (io === 'output' && out.additionalProperties === false) delete out.additionalProperties;
    if (isRecord(out.additionalProperties) && Object.keys(out.additionalProperties).length === 0) out.additionalProperties = true;
  }
  return out;
}

/** Named schemas ($ref into definitions) inlined, so that each tool's schema stands alone. */
function inlined(root: JsonSchema, definitions: Record<string, unknown>): JsonSchema {
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (!isRecord(node)) return node;
    const { $ref: ref, allOf, ...rest } = node as { $ref?: unknown; allOf?: unknown[] } & JsonSchema;
    if (typeof ref === 'string' && ref.startsWith('#/definitions/')) {
      return { ...(inline(definitions[ref.slice('#/definitions/'.length)]) as JsonSchema), ...(inline(rest) as JsonSchema) };
    }
    // A described reference comes as { description, allOf: [{ $ref }] }: one schema with the description.
    if (allOf?.length === 1) return { ...(inline(allOf[0]) as JsonSchema), ...(inline(rest) as JsonSchema) };
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(value)]));
  };
  return inline(root) as JsonSchema;
}

/**
 * The portable JSON Schema of a zod schema: its input side for arguments (integers where a
 * query string carries digits, as the OpenAPI document says), its output side for answers.
 */
export function jsonSchemaOf(schema: z.ZodType, io: Io): JsonSchema {
  const generated = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-7' }) as JsonSchema;
  const { $schema: _schema, definitions, ...root } = generated;
  return portable(inlined(root, (definitions ?? {}) as Record<string, unknown>), io);
}

// The answers.

const { methodology, disclaimer } = Notice;
const notice = { methodology, disclaimer };

/** What remains of every limit a private call was counted against (GET /automation/me lists the same). */
export const Limits = WhoAmI.shape.limits.describe(
  'Each limit this call was counted against, with what remains (the RateLimit headers of the HTTP API): ' +
    'public and private requests per minute, and the changed-submissions quota of the account (submit_report, update_report).',
);

/** One resource. */
export const single = <T extends z.ZodType>(data: T) => z.object({ data, ...notice });
/** A numbered page of a public list: the HTTP body (ListEnvelope). */
export const numberedPage = <T extends z.ZodType>(item: T) =>
  z.object({ ...MerchantList.shape, data: z.array(item) });
/** A cursor page of a private list. */
export const cursorPage = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: Queue.shape.nextCursor, ...notice });
/** A private answer: with what remains of the caller's budget. */
export const withLimits = <T extends z.ZodObject>(answer: T) => answer.extend({ limits: Limits });

const withoutNotice = { methodology: true, disclaimer: true } as const;

export const Answers = {
  merchantList: numberedPage(z.union([Merchant, CompactMerchant])),
  merchant: MerchantDetail,
  agentList: AgentList,
  categoryList: CategoryList,
  reportList: ReportList,
  report: ReportDetail,
  contributionSchema: single(ContributionSchema),
  whoami: withLimits(single(WhoAmI.omit(withoutNotice))),
  queue: withLimits(
    cursorPage(
      // The legacy category object of the HTTP queue is left out: categoryInfo is the category,
      // in the shape merchants give it, and `category` is a merchant's category string elsewhere.
      QueueItem.omit({ category: true }),
    ),
  ),
  submission: withLimits(single(SubmissionResult.omit(withoutNotice).required({ updatedAt: true, url: true, unchanged: true }))),
  ownReportList: withLimits(cursorPage(OwnReport)),
  ownReport: withLimits(single(OwnReport)),
  replacement: withLimits(single(ReplaceResult.omit(withoutNotice))),
  validation: withLimits(single(ReportValidation.omit(withoutNotice))),
};

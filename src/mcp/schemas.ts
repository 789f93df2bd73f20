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
  // A record keyed by an enum (capabilityResults) lists its keys as properties in arguments;
  // an answer keeps it a record (its keys named once, by propertyNames).
  const keys = isRecord(out.propertyNames) ? out.propertyNames.enum : undefined;
  if (io === 'input' && out.type === 'object' && Array.isArray(keys) && isRecord(out.additionalProperties)) {
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
  const made = portable(inlined(root, (definitions ?? {}) as Record<string, unknown>), io);
  return io === 'output' ? compactOutput(made) : made;
}

// Answers, compact. An outputSchema is for a client that validates structuredContent (the
// official SDK's Client does, with Ajv) and for one that wants the answer's fields; the prose
// lives in the tool descriptions, the contribution schema and the OpenAPI document. So an
// outputSchema:
//   - carries no description, title or examples, and no bounds that only restate a safe integer;
//   - declares a union of object shapes (a merchant in either view) as one object: the
//     properties of either, required what both require;
//   - declares the envelope and every field of the resource (data, or each item of a list) with
//     its type, format, enum, nullability and presence; an object nested in a field is declared
//     in full when it is short (NESTED_OBJECT_BYTES: a merchant's or agent's id, slug, name and
//     url) or already declared at the resource's level, and otherwise as an open object
//     ({ type: "object", properties: {} }): its fields are in the OpenAPI document;
//   - writes each shape that occurs more than once once, in the root's `definitions`, referred
//     to as { "$ref": "#/definitions/<name>" }: the keyword of draft-07, the dialect the SDK
//     stamps on every listed schema ($schema), and one the SDK Client's Ajv resolves (so does
//     any 2020-12 validator, a $ref being a JSON pointer). Arguments stay self-contained (no $ref).

/** Keywords that only explain; an answer's schema leaves them out. */
const PROSE = new Set(['description', 'title', 'examples']);
/** zod's bounds of an integer with no bounds of its own. */
const SAFE_BOUND = Number.MAX_SAFE_INTEGER;
/** A nested object is declared in full up to this size (its compact JSON); larger ones are open. */
const NESTED_OBJECT_BYTES = 200;
/** A shape is hoisted into definitions when that saves at least this many bytes of the schema. */
const DEDUPE_MIN_SAVING = 150;

type Slot = [node: JsonSchema, name: string, replace: (next: JsonSchema) => void];

/** Each subschema of a node (the keywords portable() writes), with the name a definition of it would take. */
function subschemas(node: JsonSchema, name: string): Slot[] {
  const found: Slot[] = [];
  if (isRecord(node.properties)) {
    const properties = node.properties;
    for (const [key, value] of Object.entries(properties)) if (isRecord(value)) found.push([value, key, (next) => (properties[key] = next)]);
  }
  for (const key of SUBSCHEMA) {
    const value = node[key];
    if (isRecord(value)) found.push([value, key === 'items' ? `${name}Item` : name, (next) => (node[key] = next)]);
  }
  for (const key of SUBSCHEMA_LISTS) {
    const list = node[key];
    if (Array.isArray(list)) list.forEach((value, i) => isRecord(value) && found.push([value, name, (next) => (list[i] = next)]));
  }
  return found;
}

/** A fresh copy of a schema without prose and without bounds that say nothing. */
function plain(node: JsonSchema): JsonSchema {
  const out: JsonSchema = Object.fromEntries(Object.entries(node).filter(([key]) => !PROSE.has(key)));
  if (out.type === 'integer' && out.maximum === SAFE_BOUND) delete out.maximum;
  if (out.type === 'integer' && out.minimum === -SAFE_BOUND) delete out.minimum;
  if (isRecord(out.properties)) out.properties = { ...out.properties };
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(out[key])) out[key] = [...(out[key] as unknown[])];
  for (const [child, , replace] of subschemas(out, '')) replace(plain(child));
  return out;
}

/** JSON with the keys of every object sorted: two shapes are the same when these are equal. */
const canonical = (value: unknown): string =>
  Array.isArray(value)
    ? `[${value.map(canonical).join(',')}]`
    : isRecord(value)
      ? `{${Object.keys(value)
          .sort()
          .map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`)
          .join(',')}}`
      : JSON.stringify(value);

/**
 * Two shapes as one that accepts both: an object has the properties of either (merged where
 * both have one) and requires what both require; arrays merge their items; other differing
 * shapes become anyOf branches.
 */
function union(a: JsonSchema, b: JsonSchema): JsonSchema {
  if (canonical(a) === canonical(b)) return a;
  if (a.type === 'object' && b.type === 'object' && isRecord(a.properties) && isRecord(b.properties)) {
    const properties: Record<string, unknown> = { ...a.properties };
    for (const [name, schema] of Object.entries(b.properties)) {
      const mine = properties[name];
      properties[name] = isRecord(mine) && isRecord(schema) ? union(mine, schema) : schema;
    }
    const both = Array.isArray(a.required) && Array.isArray(b.required) ? a.required.filter((name) => (b.required as unknown[]).includes(name)) : [];
    const { required: _required, ...rest } = a;
    return { ...rest, properties, ...(both.length > 0 ? { required: both } : {}) };
  }
  if (a.type === 'array' && b.type === 'array' && isRecord(a.items) && isRecord(b.items)) {
    const { items: itemsA, ...restA } = a;
    const { items: itemsB, ...restB } = b;
    if (canonical(restA) === canonical(restB)) return { ...restA, items: union(itemsA as JsonSchema, itemsB as JsonSchema) };
  }
  const branches = (node: JsonSchema) => (Array.isArray(node.anyOf) && Object.keys(node).length === 1 ? (node.anyOf as JsonSchema[]) : [node]);
  const all = [...branches(a), ...branches(b)];
  const merged: JsonSchema[] = [];
  for (const branch of all.filter((branch) => !isNull(branch))) {
    const object = merged.findIndex((m) => m.type === 'object' && branch.type === 'object');
    if (object >= 0) merged[object] = union(merged[object]!, branch);
    else if (!merged.some((m) => canonical(m) === canonical(branch))) merged.push(branch);
  }
  const out = all.some(isNull) ? [...merged, { type: 'null' }] : merged;
  return out.length === 1 ? out[0]! : { anyOf: out };
}

/** A union of object shapes declared as one object (see union). */
function objectUnionsMerged(node: JsonSchema): JsonSchema {
  for (const [child, , replace] of subschemas(node, '')) replace(objectUnionsMerged(child));
  const branches = Array.isArray(node.anyOf) ? (node.anyOf as JsonSchema[]) : [];
  if (branches.length > 1 && branches.every((branch) => isRecord(branch) && branch.type === 'object')) {
    const { anyOf: _anyOf, ...outer } = node;
    return { ...branches.reduce(union), ...outer };
  }
  return node;
}

const OPEN_OBJECT: JsonSchema = { type: 'object', properties: {} };

/**
 * The envelope (depth 0) and the resource (depth 1: data, or a list's item, and the other
 * fields of the envelope) declared in full; an object nested deeper in full only when it is
 * short or its shape is one `declared` already, otherwise open. An array's items and a union's
 * branches are at the depth of the array or union.
 */
function nestedOpened(node: JsonSchema, declared: Set<string>, depth = 0): JsonSchema {
  const out: JsonSchema = { ...node };
  if (isRecord(out.properties)) {
    out.properties = Object.fromEntries(Object.entries(out.properties).map(([key, value]) => [key, isRecord(value) ? nestedOpened(value, declared, depth + 1) : value]));
  }
  for (const key of SUBSCHEMA) if (isRecord(out[key])) out[key] = nestedOpened(out[key], declared, depth);
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(out[key])) out[key] = (out[key] as unknown[]).map((value) => (isRecord(value) ? nestedOpened(value, declared, depth) : value));
  if (depth <= 1 || out.type !== 'object') return out;
  return JSON.stringify(out).length <= NESTED_OBJECT_BYTES || declared.has(canonical(out)) ? out : OPEN_OBJECT;
}

/** The canonical form of every object the envelope and the resource declare in full. */
function declaredShapes(node: JsonSchema, depth = 0, found = new Set<string>()): Set<string> {
  if (depth > 1) return found;
  if (node.type === 'object') found.add(canonical(node));
  if (isRecord(node.properties)) for (const value of Object.values(node.properties)) if (isRecord(value)) declaredShapes(value, depth + 1, found);
  for (const [child] of subschemas({ ...node, properties: undefined }, '')) declaredShapes(child, depth, found);
  return found;
}

const refTo = (name: string) => ({ $ref: `#/definitions/${name}` });

/**
 * Each shape that occurs more than once, written once in the root's definitions: repeatedly,
 * the shape whose hoisting saves most bytes becomes a definition, until none saves DEDUPE_MIN_SAVING. Definitions may
 * refer to one another; the root is never one.
 */
function deduplicated(root: JsonSchema): JsonSchema {
  const defs: Record<string, JsonSchema> = {};
  for (;;) {
    const seen = new Map<string, { node: JsonSchema; name: string; count: number }>();
    const visit = (node: JsonSchema, name: string) => {
      for (const [child, childName] of subschemas(node, name)) {
        const key = canonical(child);
        const entry = seen.get(key);
        if (entry) entry.count += 1;
        else seen.set(key, { node: child, name: childName, count: 1 });
        visit(child, childName);
      }
    };
    visit(root, 'answer');
    for (const [name, def] of Object.entries(defs)) visit(def, name);

    let best: { key: string; node: JsonSchema; name: string; saving: number } | undefined;
    for (const [key, { node, name, count }] of seen) {
      if (count < 2) continue;
      const saving = (count - 1) * key.length - count * JSON.stringify(refTo(name)).length - name.length;
      if (saving >= DEDUPE_MIN_SAVING && (!best || saving > best.saving)) best = { key, node, name, saving };
    }
    if (!best) break;

    const base = best.name.replace(/[^A-Za-z0-9_]/g, '') || 'shape';
    let name = base;
    for (let i = 2; name in defs; i += 1) name = `${base}${i}`;
    const shape = best.key;
    const replaceIn = (node: JsonSchema) => {
      for (const [child, , replace] of subschemas(node, '')) {
        if (canonical(child) === shape) replace(refTo(name));
        else replaceIn(child);
      }
    };
    replaceIn(root);
    for (const def of Object.values(defs)) replaceIn(def);
    defs[name] = best.node;
  }
  return Object.keys(defs).length === 0 ? root : { ...root, definitions: defs };
}

/** An answer's schema as tools/list shows it (see above). */
function compactOutput(schema: JsonSchema): JsonSchema {
  const merged = objectUnionsMerged(requiredAtRootOnly(plain(schema), true));
  const declared = declaredShapes(nestedOpened(merged, new Set()));
  return deduplicated(nestedOpened(merged, declared));
}

/**
 * `required` kept on the envelope only: below it every member is still declared with its type,
 * and the OpenAPI document says which are always there (issue 35's size bound).
 */
function requiredAtRootOnly(node: JsonSchema, root = false): JsonSchema {
  const out: JsonSchema = { ...node };
  if (!root) delete out.required;
  if (isRecord(out.properties)) out.properties = { ...out.properties };
  for (const key of SUBSCHEMA_LISTS) if (Array.isArray(out[key])) out[key] = [...(out[key] as unknown[])];
  for (const [child, , replace] of subschemas(out, '')) replace(requiredAtRootOnly(child));
  return out;
}

// The answers.

const { methodology, disclaimer } = Notice;
const notice = { methodology, disclaimer };

/** What remains of every limit a private call was counted against (GET /automation/me lists the same). */
const Limits = WhoAmI.shape.limits.describe(
  'Each limit this call was counted against, with what remains (the RateLimit headers of the HTTP API): ' +
    'public and private requests per minute, and the changed-submissions quota of the account (submit_report, update_report).',
);

/** One resource. */
const single = <T extends z.ZodType>(data: T) => z.object({ data, ...notice });
/** A numbered page of a public list: the HTTP body (ListEnvelope). */
const numberedPage = <T extends z.ZodType>(item: T) =>
  z.object({ ...MerchantList.shape, data: z.array(item) });
/** A cursor page of a private list. */
const cursorPage = <T extends z.ZodType>(item: T) =>
  z.object({ data: z.array(item), nextCursor: Queue.shape.nextCursor, ...notice });
/** A private answer: with what remains of the caller's budget. */
const withLimits = <T extends z.ZodObject>(answer: T) => answer.extend({ limits: Limits });

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
    ).extend({ total: Queue.shape.total, remaining: Queue.shape.remaining }),
  ),
  submission: withLimits(single(SubmissionResult.omit(withoutNotice).required({ updatedAt: true, url: true, unchanged: true }))),
  ownReportList: withLimits(cursorPage(OwnReport)),
  ownReport: withLimits(single(OwnReport)),
  replacement: withLimits(single(ReplaceResult.omit(withoutNotice))),
  validation: withLimits(single(ReportValidation.omit(withoutNotice))),
};

// The MCP Inspector's tool-schema portability check (modelcontextprotocol/inspector,
// core/json/schemaLint.ts, PR #2121 and #2395), reproduced over tools/list, plus the stricter
// rules the directory holds its schemas to. A finding is a warning or an error, as the
// Inspector grades it; the tests require none of either.
//
// The Inspector's rules, as its pull requests describe them:
//   - root: an inputSchema is an object schema (`type: "object"`); an outputSchema may be any schema.
//   - boolean-schema: a bare `true`/`false` where a schema object is expected (only keywords
//     whose value may be a boolean, such as additionalProperties, take one).
//   - type-union: `type` written as an array (["boolean", "null"]); the portable spelling is
//     anyOf branches of one type each.
//   - untyped: a schema reached through properties, items or additionalProperties that has no
//     type (and no enum, const, anyOf, oneOf, allOf or $ref to give it one): strict
//     function-calling clients reject the tool.
// Ours on top: every node has a single `type` (an enum or const too) or is a `$ref`; objects
// list `properties`; arrays have `items`; an anyOf is one type plus, in answers only, null (no
// unions of different types; a `$ref` branch has the type of what it refers to). Arguments have
// no anyOf at all and no `$ref`, `$defs` or `definitions`: each stands alone, as strict
// function-calling clients need. Answers (outputSchema, read by validating clients) may write a
// shape once: `definitions` (the keyword of draft-07, the dialect the SDK stamps on listed
// schemas) at the root only, and `$ref` only as `{ "$ref": "#/definitions/<name>" }` to an entry
// of it; never `$defs`.
export interface Finding {
  tool: string;
  schema: 'inputSchema' | 'outputSchema';
  rule: string;
  severity: 'error' | 'warning';
  path: string;
}

type Node = Record<string, unknown>;
const isRecord = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);
const BOOLEAN_VALUED = new Set(['additionalProperties', 'unevaluatedProperties', 'unevaluatedItems']);
const LOCAL_REF = /^#\/definitions\/([A-Za-z0-9_]+)$/;

export function lintTool(tool: { name: string; inputSchema: unknown; outputSchema?: unknown }): Finding[] {
  const findings: Finding[] = [];
  for (const kind of ['inputSchema', 'outputSchema'] as const) {
    const root = tool[kind];
    if (root === undefined) continue;
    const add = (rule: string, severity: Finding['severity'], path: string) => findings.push({ tool: tool.name, schema: kind, rule, severity, path });
    if (kind === 'inputSchema' && (!isRecord(root) || root.type !== 'object')) add('root-not-object', 'error', '#');
    const defs = kind === 'outputSchema' && isRecord(root) && isRecord(root.definitions) ? root.definitions : {};
    /** The type a node gives its value: its own, or that of the definition it refers to. */
    const typeOf = (node: unknown): unknown => {
      if (!isRecord(node)) return undefined;
      const ref = typeof node.$ref === 'string' ? LOCAL_REF.exec(node.$ref) : null;
      return ref ? typeOf(defs[ref[1]!]) : node.type;
    };

    const walk = (node: unknown, path: string, keyword?: string) => {
      if (typeof node === 'boolean') {
        if (!keyword || !BOOLEAN_VALUED.has(keyword)) add('boolean-schema', 'error', path);
        return;
      }
      if (!isRecord(node)) {
        add('not-a-schema', 'error', path);
        return;
      }
      for (const key of ['$defs', 'nullable', 'discriminator']) if (key in node) add(`no-${key.replace('$', '')}`, 'warning', path);
      if ('definitions' in node && (kind === 'inputSchema' || path !== '#')) add('no-definitions', 'warning', path);
      if ('$ref' in node) {
        const ref = typeof node.$ref === 'string' ? LOCAL_REF.exec(node.$ref) : null;
        if (kind === 'inputSchema') add('no-ref', 'warning', path);
        else if (!ref || !isRecord(defs[ref[1]!])) add('unresolved-ref', 'error', path);
        if (Object.keys(node).length > 1) add('ref-with-siblings', 'warning', path);
        return;
      }
      if (Array.isArray(node.type)) add('type-union', 'warning', path);
      const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
      if (Array.isArray(union)) {
        if (kind === 'inputSchema') add('union-in-arguments', 'warning', path);
        const types = union.map(typeOf);
        if (types.some((t) => typeof t !== 'string')) add('untyped-branch', 'warning', path);
        if (new Set(types.filter((t) => t !== 'null')).size > 1) add('mixed-type-union', 'warning', path);
        union.forEach((branch, i) => walk(branch, `${path}/${node.anyOf ? 'anyOf' : 'oneOf'}/${i}`));
      } else if (node.type === undefined) {
        add('untyped', 'warning', path);
      }
      if (Array.isArray(node.allOf)) add('all-of', 'warning', path);
      if (node.type === 'object') {
        if (!isRecord(node.properties)) add('object-without-properties', 'warning', path);
        for (const [name, schema] of Object.entries(isRecord(node.properties) ? node.properties : {})) walk(schema, `${path}/properties/${name}`, 'properties');
        if (node.additionalProperties !== undefined) walk(node.additionalProperties, `${path}/additionalProperties`, 'additionalProperties');
        if (node.propertyNames !== undefined) walk(node.propertyNames, `${path}/propertyNames`, 'propertyNames');
      }
      if (node.type === 'array') {
        if (!isRecord(node.items)) add('array-without-items', 'warning', path);
        else walk(node.items, `${path}/items`, 'items');
      }
    };
    walk(root, '#');
    for (const [name, def] of Object.entries(defs)) walk(def, `#/definitions/${name}`, 'definitions');
  }
  return findings;
}

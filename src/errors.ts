// What a service refuses, and why, in the feature's own words: a Refusal names its kind (not
// found, invalid, conflict …), a stable code and the message a client reads. Services throw
// these and never speak HTTP; the HTTP layer maps each kind to its status and writes the
// problem+json body (web/problem.ts) or the error page.
import type { z } from 'zod';
import type { ProblemCode } from './problem-types.js';

export type RefusalKind =
  | 'invalid'
  | 'not-found'
  | 'conflict'
  | 'forbidden'
  | 'unauthenticated'
  | 'rate-limited'
  | 'precondition-required'
  | 'unsupported'
  | 'too-large'
  | 'unavailable';

/** One named input that failed validation. */
export interface FieldError {
  /** A query parameter or header name. */
  parameter?: string;
  /** A JSON pointer into the request body, e.g. "#/capabilityResults/CART". */
  pointer?: string;
  detail: string;
  /**
   * The id of the rule that refused it (a filter combination, a form's taken slug), for an edge
   * that words the refusal its own way (MCP, the pages). Edges match on this, never on `detail`'s
   * English; it is not part of the problem body.
   */
  rule?: string;
}

/** How much of a limit a request used: the HTTP layer turns it into RateLimit headers. */
export interface LimitUsage {
  name: string;
  limit: number;
  windowSeconds: number;
  remaining: number;
  resetSeconds: number;
  /** The draft-8 `pk` of the counted key (a hash, never the key). */
  partition?: string;
}

export interface RefusalInit {
  kind: RefusalKind;
  /** Stable code, described in src/problem-types.ts; the problem `type` is `<base>/problems/<code>`. */
  code: ProblemCode;
  title: string;
  detail?: string;
  errors?: FieldError[];
  /** Extension members of the problem (RFC 9457 §3.2), e.g. the current `updatedAt`. */
  extensions?: Record<string, unknown>;
  /** For a refused limit: the usage it reached (and so when to retry). */
  usage?: LimitUsage;
  /** When to try again (Retry-After), for a refusal of a moment ('unavailable'). */
  retryAfterSeconds?: number;
}

export class Refusal extends Error {
  constructor(readonly init: RefusalInit) {
    super(init.detail ?? init.title);
    this.name = 'Refusal';
  }

  get kind(): RefusalKind {
    return this.init.kind;
  }
}

export const notFound = (detail = 'No resource exists at this address.', title = 'Not found'): Refusal =>
  new Refusal({ kind: 'not-found', code: 'not-found', title, detail });

/** A refusal naming the inputs that are wrong. */
export function invalidInput(errors: FieldError[], location: 'query' | 'body' | 'header'): Refusal {
  const names = [...new Set(errors.map((e) => e.parameter ?? e.pointer?.slice(2) ?? ''))].filter(Boolean);
  return new Refusal({
    kind: 'invalid',
    code: 'validation-failed',
    title: 'The request is not valid',
    detail: `Invalid ${location === 'query' ? 'parameter' : 'field'}${names.length > 1 ? 's' : ''}: ${names.join(', ') || '(root)'}.`,
    errors,
  });
}

export const invalidParameter = (parameter: string, detail: string, rule?: string) => invalidInput([{ parameter, detail, ...(rule ? { rule } : {}) }], 'query');
export const invalidField = (field: string, detail: string, rule?: string) => invalidInput([{ pointer: `#/${field}`, detail, ...(rule ? { rule } : {}) }], 'body');

/** A zod issue's rule: a custom check's own (its params.rule), else the kind of check (zod's code). */
export function issueRule(issue: z.core.$ZodIssue): string {
  const own = issue.code === 'custom' ? (issue.params as { rule?: unknown } | undefined)?.rule : undefined;
  return typeof own === 'string' ? own : issue.code;
}

/** Field errors from a zod failure, located in the query string, a header or the body. */
function fieldErrors(error: z.ZodError, location: 'query' | 'body' | 'header'): FieldError[] {
  const at = (path: string[], detail: string): FieldError =>
    location === 'body'
      ? { pointer: `#/${path.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/')}`, detail }
      : { parameter: path[0] ?? '(none)', detail };
  return error.issues.flatMap((issue) => {
    const path = issue.path.map(String);
    // An unknown key is reported at its own name, not at the object that holds it.
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => at([...path, key], location === 'body' ? 'is not a known field' : 'is not a known parameter'));
    }
    return [{ ...at(path, issue.message), rule: issueRule(issue) }];
  });
}

export const validationRefusal = (error: z.ZodError, location: 'query' | 'body' | 'header'): Refusal =>
  invalidInput(fieldErrors(error, location), location);

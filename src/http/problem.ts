// RFC 9457 problem details: the one error format of every API route.
import type { Response } from 'express';
import type { z } from 'zod';

export const PROBLEM_CONTENT_TYPE = 'application/problem+json';

/** One named input that failed validation. */
export interface FieldError {
  /** A query parameter or header name. */
  parameter?: string;
  /** A JSON pointer into the request body, e.g. "#/capabilityResults/CART". */
  pointer?: string;
  detail: string;
}

export interface ProblemInit {
  status: number;
  /** Stable lowercase-hyphenated code; the problem `type` is `/problems/<code>`. */
  code: string;
  title: string;
  detail?: string;
  errors?: FieldError[];
  /** Extension members (RFC 9457 §3.2), e.g. the current `updatedAt` of a stale PUT. */
  extensions?: Record<string, unknown>;
  headers?: Record<string, string>;
}

export class HttpProblem extends Error {
  readonly init: ProblemInit;
  constructor(init: ProblemInit) {
    super(init.detail ?? init.title);
    this.name = 'HttpProblem';
    this.init = init;
  }
  get status(): number {
    return this.init.status;
  }
}

export function problemBody(init: ProblemInit): Record<string, unknown> {
  return {
    type: `/problems/${init.code}`,
    title: init.title,
    status: init.status,
    ...(init.detail ? { detail: init.detail } : {}),
    ...(init.errors ? { errors: init.errors } : {}),
    ...init.extensions,
  };
}

export function sendProblem(res: Response, init: ProblemInit): void {
  for (const [name, value] of Object.entries(init.headers ?? {})) res.setHeader(name, value);
  res.status(init.status).type(PROBLEM_CONTENT_TYPE).send(JSON.stringify(problemBody(init)));
}

/** Field errors from a zod failure, located in the query string or the body. */
export function fieldErrors(error: z.ZodError, location: 'query' | 'body' | 'header'): FieldError[] {
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
    return [at(path, issue.message)];
  });
}

export function validationProblem(error: z.ZodError, location: 'query' | 'body' | 'header'): HttpProblem {
  return invalidInput(fieldErrors(error, location), location);
}

/** A 400 naming the inputs that are wrong (for checks beyond the schema, e.g. unknown ids). */
export function invalidInput(errors: FieldError[], location: 'query' | 'body' | 'header'): HttpProblem {
  const names = [...new Set(errors.map((e) => e.parameter ?? e.pointer?.slice(2) ?? ''))].filter(Boolean);
  return new HttpProblem({
    status: 400,
    code: 'validation-failed',
    title: 'The request is not valid',
    detail: `Invalid ${location === 'query' ? 'parameter' : 'field'}${names.length > 1 ? 's' : ''}: ${names.join(', ') || '(root)'}.`,
    errors,
  });
}

export const invalidParameter = (parameter: string, detail: string) => invalidInput([{ parameter, detail }], 'query');
export const invalidField = (field: string, detail: string) => invalidInput([{ pointer: `#/${field}`, detail }], 'body');

export const notFoundProblem = (detail = 'No resource exists at this address.'): HttpProblem =>
  new HttpProblem({ status: 404, code: 'not-found', title: 'Not found', detail });

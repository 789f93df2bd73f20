// Every API answer a test provokes is checked against the OpenAPI document the app serves:
// its status must be documented for the operation, its media type must be the documented one,
// and its body must match the documented schema. A drift fails the suite that caused it
// (test/setup/app.ts collects the violations and throws them when the app is closed).
import { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { openApiDocument } from '../../src/http/openapi.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

interface MediaType {
  schema: object;
}
interface ResponseObject {
  content?: Record<string, MediaType>;
}
interface Operation {
  responses: Record<string, ResponseObject>;
}
export interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object> };
}

const API_PREFIX = '/api/v1';

export class ResponseChecker {
  private readonly ajv: Ajv2020;
  private readonly operations: Array<{ pattern: RegExp; method: string; template: string; operation: Operation }>;
  private readonly validators = new Map<object, ValidateFunction>();

  constructor(readonly doc: Document = openApiDocument('http://directory.test') as unknown as Document) {
    this.ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
    this.ajv.addSchema({ $id: 'doc', components: doc.components });
    this.operations = Object.entries(doc.paths).flatMap(([template, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        pattern: new RegExp(`^${API_PREFIX}${template === '/' ? '/?' : template.replace(/\{[^}]+\}/g, '[^/]+')}$`),
        method: method.toUpperCase(),
        template,
        operation,
      })),
    );
  }

  /** What is wrong with this answer, or undefined when the document describes it. */
  problemWith(method: string, path: string, status: number, contentType: string | undefined, body: Buffer): string | undefined {
    const asked = method === 'HEAD' ? 'GET' : method;
    const found = this.operations.find((o) => o.method === asked && o.pattern.test(path));
    // Addresses and methods the document does not name (404s, 405s, OPTIONS) are not operations.
    if (!found) return undefined;
    const where = `${method} ${path} (${found.template}) ${status}`;
    const response = found.operation.responses[String(status)];
    if (!response) return `${where}: status not documented`;
    if (!response.content || method === 'HEAD' || status === 304 || status === 204) return undefined;
    const mediaType = (contentType ?? '').split(';')[0]!.trim();
    const media = response.content[mediaType];
    if (!media) return `${where}: media type ${mediaType || '(none)'} not documented (${Object.keys(response.content).join(', ')})`;
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      return `${where}: body is not JSON`;
    }
    const validate = this.validatorFor(media.schema);
    if (!validate(parsed)) return `${where}: ${this.ajv.errorsText(validate.errors, { separator: '; ' })}`;
    return undefined;
  }

  private validatorFor(schema: object): ValidateFunction {
    let validate = this.validators.get(schema);
    if (!validate) {
      // References inside the document point into the schema registered as "doc".
      validate = this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"$ref":"#/', '"$ref":"doc#/')) as object);
      this.validators.set(schema, validate);
    }
    return validate;
  }

  /** Checks the answer to this request once it is sent (API paths only), into `violations`. */
  watch(req: IncomingMessage, res: ServerResponse, violations: string[]): void {
    const url = req.url ?? '';
    if (!url.startsWith(`${API_PREFIX}/`)) return;
    const chunks: Buffer[] = [];
    const keep = (chunk: unknown, encoding: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(typeof chunk === 'string' ? Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8') : Buffer.from(chunk as Uint8Array));
    };
    const write = res.write.bind(res) as (...args: unknown[]) => boolean;
    const end = res.end.bind(res) as (...args: unknown[]) => ServerResponse;
    (res as { write: unknown }).write = (chunk: unknown, encoding?: unknown, callback?: unknown) => {
      keep(chunk, encoding);
      return write(chunk, encoding, callback);
    };
    (res as { end: unknown }).end = (chunk?: unknown, encoding?: unknown, callback?: unknown) => {
      keep(chunk, encoding);
      return end(chunk, encoding, callback);
    };
    res.once('finish', () => {
      const raw = Buffer.concat(chunks);
      const encoding = String(sentHeader(res, 'content-encoding') ?? '');
      const body = encoding === 'gzip' ? gunzipSync(raw) : encoding === 'br' ? brotliDecompressSync(raw) : encoding === 'deflate' ? inflateSync(raw) : raw;
      const contentType = sentHeader(res, 'content-type');
      const problem = this.problemWith(req.method ?? 'GET', url.split('?')[0]!, res.statusCode, contentType === undefined ? undefined : String(contentType), body);
      if (problem) violations.push(problem);
    });
  }
}

/**
 * A header as it went out: read from the header block sent, since the response cache's front
 * door hands writeHead its headers whole (getHeader knows none of them).
 */
function sentHeader(res: ServerResponse, name: string): string | undefined {
  const block = (res as ServerResponse & { _header?: string | null })._header;
  if (typeof block !== 'string') return res.getHeader(name)?.toString();
  const wanted = `${name.toLowerCase()}:`;
  for (const line of block.split('\r\n')) if (line.toLowerCase().startsWith(wanted)) return line.slice(wanted.length).trim();
  return undefined;
}

let shared: ResponseChecker | undefined;
/** One checker per test process: the document's validators are compiled once. */
export const responseChecker = (): ResponseChecker => (shared ??= new ResponseChecker());

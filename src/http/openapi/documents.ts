// The API's own documents in the OpenAPI document (http/openapi.ts): the index, this document and the contribution schema.
import { componentRef, HEADERS, ok, publicHeaders, publicRead, type JsonSchema } from './operations.js';

const str = (description?: string) => ({ type: 'string', ...(description ? { description } : {}) });
const urlString = (description?: string) => ({ ...str(description), format: 'uri' });
/** An object of URLs, each named. */
const urls = (names: string[], nullable: string[] = []) => ({
  type: 'object',
  properties: Object.fromEntries(names.map((n) => [n, nullable.includes(n) ? { type: ['string', 'null'], format: 'uri' } : urlString()])),
  required: names,
});

/** GET /api/v1 (open-data/discovery.ts apiIndex). */
const API_INDEX: JsonSchema = {
  type: 'object',
  properties: {
    name: str(),
    version: str('The API version: v1.'),
    documentation: urls(['openApi', 'agentGuide', 'contributionSchema', 'problems', 'llmsTxt']),
    endpoints: {
      type: 'object',
      description: 'Entry points of the API, by name.',
      additionalProperties: urlString(),
    },
    data: {
      type: 'object',
      description: 'Open data: the daily dumps, the newest one (null before the first), the Atom feed, and the licence.',
      properties: {
        dumps: urlString(),
        latestDump: { type: ['string', 'null'], format: 'uri' },
        feed: urlString(),
        licence: { type: 'object', description: 'The licence of the open data (name, identifier, url).' },
      },
      required: ['dumps', 'latestDump', 'feed', 'licence'],
    },
    methodology: urlString('How reports become statuses.'),
    disclaimer: str('Community-reported experience, not guaranteed capability or confirmed merchant policy.'),
  },
  required: ['name', 'documentation', 'endpoints', 'data', 'methodology', 'disclaimer'],
};

/** GET /api/v1/openapi.json: an OpenAPI 3.1 document (its own schema is the OpenAPI specification's). */
const OPENAPI_DOCUMENT: JsonSchema = {
  type: 'object',
  description: 'An OpenAPI 3.1 document: see https://spec.openapis.org/oas/v3.1.0 for every member.',
  properties: {
    openapi: { type: 'string', description: 'The OpenAPI version: 3.1.0.' },
    jsonSchemaDialect: urlString(),
    info: { type: 'object', description: 'Title, version, description, licence and contact.' },
    servers: { type: 'array', items: { type: 'object' } },
    security: { type: 'array', items: { type: 'object' } },
    tags: { type: 'array', items: { type: 'object' } },
    paths: { type: 'object', description: 'Every operation, by path.' },
    components: { type: 'object', description: 'Schemas and security schemes.' },
  },
  required: ['openapi', 'info', 'paths'],
};

/** GET /, /openapi.json and /contribution-schema: where everything is, this document, how to contribute. */
export function documentPaths(): Record<string, unknown> {
  return {
    '/': {
      get: publicRead({
        operationId: 'apiIndex',
        summary: 'The API index: documents, entry points, open data',
        description: 'Link headers point to this document (rel="service-desc") and the agent guide (rel="service-doc").',
        tags: ['Meta'],
        responses: {
          '200': ok('Where everything is.', API_INDEX, { ...publicHeaders, Link: HEADERS.Link }),
        },
      }),
    },
    '/openapi.json': {
      get: publicRead({
        operationId: 'openApiDocument',
        summary: 'This document',
        description: 'The OpenAPI 3.1 description of every endpoint, parameter and answer of this API, generated from the schemas that validate them.',
        tags: ['Meta'],
        responses: { '200': ok('The OpenAPI 3.1 document.', OPENAPI_DOCUMENT, publicHeaders) },
      }),
    },
    '/contribution-schema': {
      get: publicRead({
        operationId: 'contributionSchema',
        summary: 'The machine-readable contribution schema',
        description:
          'Tasks, outcomes, stages and failure reasons with their labels, definitions and examples; the rules of filling a report in (the stage of a blocked run, one failure reason, PARTIAL, stopping at payment, unknown fields); every limit of the contribution endpoints; the privacy conditions; and the JSON Schema of the report body.',
        tags: ['Contribution'],
        responses: { '200': ok('The contribution schema.', componentRef('ContributionSchema'), publicHeaders) },
      }),
    },
  };
}

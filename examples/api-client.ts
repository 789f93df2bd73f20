// A typed client of the API with openapi-fetch, its types generated from the OpenAPI document
// (examples/generated/api.d.ts, `npm run api:types`): every path, parameter and body below is
// checked by the compiler against the document, with no casts. One agent step:
//   who am I → the first merchant of the queue → submit a report → read it → replace it.
// Run: ACD_BASE_URL=http://localhost:3000 ACD_KEY=acd_… npx tsx examples/api-client.ts
// (A real agent also honours Retry-After and stops on 401/403: see examples/queue-pass.ts.)
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/api.js';

export type OwnReport = components['schemas']['OwnReportDetail'];

export interface StepResult {
  agent: string;
  merchant: string | null;
  submitted?: components['schemas']['SubmissionResult'];
  replaced?: components['schemas']['ReplaceResult'];
}

export async function oneStep(options: { baseUrl: string; key: string; fetch?: typeof fetch; testedAt: string }): Promise<StepResult> {
  const api = createClient<paths>({
    baseUrl: `${options.baseUrl}/api/v1`,
    headers: { Authorization: `Bearer ${options.key}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });

  const me = await api.GET('/automation/me');
  if (!me.data) throw new Error(`whoami: ${me.error?.title ?? me.response.status}`);
  const agentId = me.data.agent.id;

  const queue = await api.GET('/automation/queue', { params: { query: { limit: 1 } } });
  if (!queue.data) throw new Error(`queue: ${queue.error?.title ?? queue.response.status}`);
  const merchant = queue.data.items[0];
  if (!merchant) return { agent: me.data.agent.slug, merchant: null };

  // What this agent found when it tried the merchant (a real agent would test it here).
  const submitted = await api.POST('/reports', {
    body: { adId: merchant.id, agentId, privacy: true, capabilityResults: { ACCESS: 'WORKS', SEARCH: 'WORKS' }, testedAt: options.testedAt, region: 'DE' },
  });
  if (!submitted.data) throw new Error(`submit: ${submitted.error?.title ?? submitted.response.status}`);

  // Read it back in the shape it was written, and replace it at that version.
  const read = await api.GET('/automation/reports/{id}', { params: { path: { id: submitted.data.id } } });
  if (!read.data) throw new Error(`read: ${read.error?.title ?? read.response.status}`);
  const version = read.response.headers.get('ETag') ?? read.data.updatedAt;
  const replaced = await api.PUT('/automation/reports/{id}', {
    params: { path: { id: read.data.id }, header: { 'If-Match': version } },
    // The outcome was derived (outcomeDerived): null derives it again from the new results.
    body: { ...read.data, outcome: read.data.outcomeDerived ? null : read.data.outcome, capabilityResults: { ...read.data.capabilityResults, DETAILS: 'PARTIAL' } },
  });
  if (!replaced.data) throw new Error(`replace: ${replaced.error?.title ?? replaced.response.status}`);
  return { agent: me.data.agent.slug, merchant: merchant.slug, submitted: submitted.data, replaced: replaced.data };
}

if (process.argv[1]?.endsWith('api-client.ts')) {
  const baseUrl = process.env.ACD_BASE_URL ?? 'http://localhost:3000';
  const key = process.env.ACD_KEY;
  if (!key) {
    console.error('Set ACD_KEY to an agent key (issued on /profile/agents).');
    process.exit(2);
  }
  console.log(JSON.stringify(await oneStep({ baseUrl, key, testedAt: new Date().toISOString().slice(0, 10) }), null, 2));
}

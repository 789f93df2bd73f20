// A polite client of the automation queue, with nothing but Node.js (18+): one pass over
// GET /api/v1/automation/queue, page by page, that
//   - honours Retry-After on 429,
//   - stops for good on 401 and 403 (the same request will never succeed),
//   - backs off boundedly on 5xx answers and network errors,
//   - waits an hour after an empty pass before the next one.
// Run: ACD_BASE_URL=http://localhost:3000 ACD_KEY=acd_… npx tsx examples/queue-pass.ts
// The key goes in the Authorization header only; never in a URL.

export interface QueueItem {
  id: string;
  slug: string;
  name: string;
  website: string;
  profileUrl: string;
  existingReport?: { id: string; status: string; updatedAt: string };
}

export interface PassOptions {
  baseUrl: string;
  key: string;
  /** Filters repeated on every page, as the API requires. */
  filters?: { category?: string; retestAfterDays?: number; limit?: number };
  /** Called for each merchant to test; a real agent would test it and POST a report. */
  onItem?: (item: QueueItem) => Promise<void> | void;
  fetch?: typeof fetch;
  sleep?: (ms: number) => Promise<void>;
  log?: (line: string) => void;
  /** Attempts per request on 5xx and network errors. */
  maxAttempts?: number;
}

export type PassResult =
  | { outcome: 'done'; items: number; pages: number }
  | { outcome: 'stopped'; status: number; detail: string }
  | { outcome: 'gave-up'; reason: string };

export const EMPTY_QUEUE_WAIT_MS = 60 * 60 * 1000;
const BACKOFF_BASE_MS = 1_000;
const BACKOFF_MAX_MS = 60_000;

class Stop extends Error {
  constructor(
    readonly status: number,
    readonly detail: string,
  ) {
    super(detail);
  }
}

class GiveUp extends Error {}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** One GET with the rules above; returns the JSON body of a 2xx answer. */
async function politeGet(url: string, o: Required<Pick<PassOptions, 'key' | 'fetch' | 'sleep' | 'log' | 'maxAttempts'>>): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    let res: Response;
    try {
      res = await o.fetch(url, { headers: { Authorization: `Bearer ${o.key}`, Accept: 'application/json' } });
    } catch (error) {
      if (attempt >= o.maxAttempts) throw new GiveUp(`network error: ${(error as Error).message}`);
      const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
      o.log(`network error, retrying in ${wait} ms`);
      await o.sleep(wait);
      continue;
    }
    if (res.ok) return res.json();
    const problem = (await res.json().catch(() => ({}))) as { detail?: string; title?: string };
    if (res.status === 401 || res.status === 403) throw new Stop(res.status, problem.detail ?? problem.title ?? 'refused');
    if (res.status === 429) {
      const seconds = Number(res.headers.get('retry-after'));
      const wait = (Number.isFinite(seconds) && seconds > 0 ? seconds : 60) * 1000;
      o.log(`rate limited, waiting ${wait} ms as Retry-After says`);
      await o.sleep(wait);
      attempt = 0; // waiting as told is not a failed attempt
      continue;
    }
    if (res.status >= 500 && attempt < o.maxAttempts) {
      const wait = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (attempt - 1));
      o.log(`server error ${res.status}, retrying in ${wait} ms`);
      await o.sleep(wait);
      continue;
    }
    throw res.status >= 500 ? new GiveUp(`server error ${res.status}`) : new Stop(res.status, problem.detail ?? 'request refused');
  }
}

/** One pass over the queue; after an empty pass it waits an hour before returning. */
export async function queuePass(options: PassOptions): Promise<PassResult> {
  const o = {
    key: options.key,
    fetch: options.fetch ?? fetch,
    sleep: options.sleep ?? defaultSleep,
    log: options.log ?? ((line: string) => console.log(line)),
    maxAttempts: options.maxAttempts ?? 5,
  };
  const filters = options.filters ?? {};
  let cursor: string | null = null;
  let items = 0;
  let pages = 0;
  try {
    do {
      const url = new URL('/api/v1/automation/queue', options.baseUrl);
      for (const [name, value] of Object.entries(filters)) if (value !== undefined) url.searchParams.set(name, String(value));
      if (cursor) url.searchParams.set('after', cursor);
      const page = (await politeGet(url.toString(), o)) as { items: QueueItem[]; nextCursor: string | null };
      pages++;
      for (const item of page.items) {
        items++;
        await options.onItem?.(item);
      }
      cursor = page.nextCursor;
    } while (cursor);
  } catch (error) {
    if (error instanceof Stop) {
      o.log(`stopping: ${error.status} ${error.detail}`);
      return { outcome: 'stopped', status: error.status, detail: error.detail };
    }
    if (error instanceof GiveUp) return { outcome: 'gave-up', reason: error.message };
    throw error;
  }
  if (items === 0) {
    o.log('the queue is empty: waiting an hour before another pass');
    await o.sleep(EMPTY_QUEUE_WAIT_MS);
  }
  return { outcome: 'done', items, pages };
}

const isMain = import.meta.url === new URL(`file://${process.argv[1] ?? ''}`).href;
if (isMain) {
  const baseUrl = process.env.ACD_BASE_URL ?? 'http://localhost:3000';
  const key = process.env.ACD_KEY;
  if (!key) {
    console.error('Set ACD_KEY to an agent key issued at /profile/agents.');
    process.exit(1);
  }
  const result = await queuePass({ baseUrl, key, onItem: (item) => console.log(`${item.name} ${item.website}`) });
  console.log(JSON.stringify(result));
  process.exit(result.outcome === 'done' ? 0 : 1);
}

// Metrics that belong to the process rather than to one app: Node's own (CPU, memory, event
// loop, GC), the upkeep passes and the rate limiters' syncs. They live in one registry of their
// own, made once per process; each app's /metrics appends it to the app's registry (HTTP,
// response cache, pool, dump age; web/middleware/metrics.ts). Never prom-client's global
// registry: tests build many apps in one process, and a metric registered twice throws.
//
// With WEB_CONCURRENCY > 1 every worker keeps its own counts and the primary runs the upkeep, so
// a scrape that reaches one worker asks the primary for the whole service: the primary collects
// each worker's registries and its own over the cluster's IPC channel and merges them with
// prom-client's AggregatorRegistry (counters and histograms summed, gauges by their aggregator).
import cluster from 'node:cluster';
import { AggregatorRegistry, collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

const registry = new Registry();
let defaults = false;

/** The process's registry; Node's own metrics join it when the first app asks for it, not on import (CLI tools). */
export function processRegistry(): Registry {
  if (!defaults) {
    defaults = true;
    collectDefaultMetrics({ register: registry });
  }
  return registry;
}

/** Upkeep and summary refreshes take seconds to minutes (a whole directory's recompute). */
const JOB_BUCKETS = [0.1, 0.5, 1, 5, 15, 60, 300, 900];

const upkeepDuration = new Histogram({
  name: 'acd_upkeep_duration_seconds',
  help: 'Upkeep passes this process ran (holding the upkeep lock), by duration.',
  buckets: JOB_BUCKETS,
  registers: [registry],
});
const upkeepFailures = new Counter({
  name: 'acd_upkeep_failures_total',
  help: 'Upkeep steps that failed, by step (connect, lock, summaries, rate-limit-prune, sign-in-prune, screenshot-sweep, dump, dump-prune).',
  labelNames: ['step'],
  registers: [registry],
});
const upkeepLastSuccess = new Gauge({
  name: 'acd_upkeep_last_success_timestamp_seconds',
  help: 'Start (Unix time) of the last upkeep pass this process ran whose steps all succeeded.',
  aggregator: 'max',
  registers: [registry],
});
const summaryRefreshDuration = new Histogram({
  name: 'acd_summary_refresh_duration_seconds',
  help: 'Refreshes of the summaries older than a day, by duration.',
  buckets: JOB_BUCKETS,
  registers: [registry],
});
const summaryRefreshFailures = new Counter({
  name: 'acd_summary_refresh_failures_total',
  help: 'Refreshes of stale summaries that failed.',
  registers: [registry],
});
const summariesRefreshed = new Counter({
  name: 'acd_summaries_refreshed_total',
  help: 'Summaries recomputed by the refresh of stale summaries.',
  registers: [registry],
});
const limiterSyncs = new Counter({
  name: 'acd_limiter_syncs_total',
  help: "Syncs of the synced rate limiters' counts with PostgreSQL, by limiter and outcome (ok, failed).",
  labelNames: ['limiter', 'outcome'],
  registers: [registry],
});
const limiterSyncDuration = new Histogram({
  name: 'acd_limiter_sync_duration_seconds',
  help: "Syncs of the synced rate limiters' counts with PostgreSQL, by duration.",
  labelNames: ['limiter'],
  buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1],
  registers: [registry],
});

/** Starts a timer; calling the result gives the seconds since. */
const stopwatch = () => {
  const start = process.hrtime.bigint();
  return () => Number(process.hrtime.bigint() - start) / 1e9;
};

/** What upkeep.ts reports. */
export const upkeepMetrics = {
  stopwatch,
  passDone(seconds: number, failedSteps: number, now: Date): void {
    upkeepDuration.observe(seconds);
    if (failedSteps === 0) upkeepLastSuccess.set(now.getTime() / 1000);
  },
  failed(step: 'connect' | 'lock' | 'summaries' | 'list-fragments' | 'rate-limit-prune' | 'sign-in-prune' | 'screenshot-sweep' | 'dump' | 'dump-prune' | 'claim-rechecks' | 'owner-digests' | 'address-hash-prune'): void {
    upkeepFailures.inc({ step });
  },
  summaryRefresh(seconds: number, refreshed: number | null): void {
    summaryRefreshDuration.observe(seconds);
    if (refreshed === null) summaryRefreshFailures.inc();
    else summariesRefreshed.inc(refreshed);
  },
};

/** What a synced rate-limit store (modules/limits/counters.ts) reports; `limiter` is its fixed name. */
export function limiterSynced(limiter: string, seconds: number, ok: boolean): void {
  limiterSyncs.inc({ limiter, outcome: ok ? 'ok' : 'failed' });
  limiterSyncDuration.observe({ limiter }, seconds);
}

// ---- The cluster: one scrape for all processes -------------------------------------------

type ClusterMessage =
  | { type: 'acd:metrics-scrape'; id: number }
  | { type: 'acd:metrics-scraped'; id: number; text?: string; error?: string }
  | { type: 'acd:metrics-collect'; id: number }
  | { type: 'acd:metrics-collected'; id: number; metrics: unknown[] };

/** How long a scrape waits for the primary, and the primary for each worker. */
const CLUSTER_SCRAPE_TIMEOUT_MS = 4_000;

const isMessage = (message: unknown): message is ClusterMessage =>
  typeof message === 'object' && message !== null && String((message as { type?: unknown }).type).startsWith('acd:metrics-');

let sharedRegistries: Registry[] | undefined;
let nextScrape = 0;
const scrapes = new Map<number, (answer: { text?: string; error?: string }) => void>();

/**
 * In a cluster worker: answers the primary's collection requests with these registries (the
 * worker's app and process), and hears the answers to its own scrapes. Outside a worker: nothing.
 */
export function shareWithCluster(registries: Registry[]): void {
  if (!cluster.isWorker) return;
  const first = sharedRegistries === undefined;
  sharedRegistries = registries;
  if (!first) return;
  process.on('message', (message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === 'acd:metrics-collect') {
      void Promise.all((sharedRegistries ?? []).map((r) => r.getMetricsAsJSON())).then(
        (metrics) => process.send?.({ type: 'acd:metrics-collected', id: message.id, metrics }),
        () => process.send?.({ type: 'acd:metrics-collected', id: message.id, metrics: [] }),
      );
    } else if (message.type === 'acd:metrics-scraped') {
      scrapes.get(message.id)?.(message);
    }
  });
}

/** True in a cluster worker that shares its metrics: a scrape must ask the primary. */
export const scrapesThroughPrimary = () => cluster.isWorker && sharedRegistries !== undefined && process.send !== undefined;

/** From a cluster worker: the whole service's metrics as Prometheus text, merged by the primary. */
export function scrapeThroughPrimary(): Promise<string> {
  const id = nextScrape++;
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      scrapes.delete(id);
      reject(new Error('the primary did not answer the metrics scrape in time'));
    }, CLUSTER_SCRAPE_TIMEOUT_MS + 1_000);
    scrapes.set(id, (answer) => {
      clearTimeout(timer);
      scrapes.delete(id);
      if (answer.text !== undefined) resolve(answer.text);
      else reject(new Error(answer.error ?? 'the metrics scrape failed'));
    });
    process.send!({ type: 'acd:metrics-scrape', id } satisfies ClusterMessage);
  });
}

type MetricsJson = Awaited<ReturnType<Registry['getMetricsAsJSON']>>;

/** Metric types whose values only grow: a worker's last ones stay in the sum after it is gone. */
const MONOTONIC = new Set(['counter', 'histogram']);

/**
 * In the cluster primary: answers workers' scrapes with every live worker's metrics and its
 * own (the upkeep's, Node's), merged. A worker that does not answer within the timeout (slow,
 * stopped, dying) is counted with the last metrics it sent rather than left out: leaving it out
 * made the sums of counters drop, which Prometheus reads as a reset (and then counts the whole
 * total again as new). A worker that exits keeps its last counters and histograms in every sum
 * from then on, for the same reason; its gauges go with it.
 */
export function serveClusterMetrics(): void {
  const collecting = new Map<number, { pending: Set<number>; metrics: MetricsJson[]; done: () => void }>();
  /** Each live worker's newest answer (cluster worker id), late answers included. */
  const lastKnown = new Map<number, MetricsJson[]>();
  /** The counters and histograms of workers that exited, merged. */
  let retired: MetricsJson = [];
  let retiring: Promise<void> = Promise.resolve();
  let nextCollect = 0;
  const collectAll = () =>
    new Promise<MetricsJson[]>((resolve) => {
      const id = nextCollect++;
      const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined && w.isConnected());
      const entry = { pending: new Set(workers.map((w) => w!.id)), metrics: [] as MetricsJson[], done: () => {} };
      const timer = setTimeout(() => entry.done(), CLUSTER_SCRAPE_TIMEOUT_MS);
      entry.done = () => {
        clearTimeout(timer);
        collecting.delete(id);
        for (const workerId of entry.pending) entry.metrics.push(...(lastKnown.get(workerId) ?? []));
        entry.pending.clear();
        resolve(entry.metrics);
      };
      collecting.set(id, entry);
      if (entry.pending.size === 0) entry.done();
      for (const worker of workers) worker!.send({ type: 'acd:metrics-collect', id } satisfies ClusterMessage);
    });

  cluster.on('exit', (worker) => {
    const last = lastKnown.get(worker.id);
    lastKnown.delete(worker.id);
    if (!last) return;
    const monotonic = last.map((registry) => registry.filter((metric) => MONOTONIC.has(String(metric.type))));
    retiring = retiring.then(async () => {
      retired = await AggregatorRegistry.aggregate([retired, ...monotonic] as Parameters<typeof AggregatorRegistry.aggregate>[0]).getMetricsAsJSON();
    }, () => undefined);
  });

  cluster.on('message', (worker, message: unknown) => {
    if (!isMessage(message)) return;
    if (message.type === 'acd:metrics-collected') {
      const metrics = message.metrics as MetricsJson[];
      if (metrics.length > 0) lastKnown.set(worker.id, metrics);
      const entry = collecting.get(message.id);
      if (!entry || !entry.pending.delete(worker.id)) return;
      entry.metrics.push(...metrics);
      if (entry.pending.size === 0) entry.done();
    } else if (message.type === 'acd:metrics-scrape') {
      void (async () => {
        const fromWorkers = await collectAll();
        await retiring;
        const own = await processRegistry().getMetricsAsJSON();
        return AggregatorRegistry.aggregate([...fromWorkers, retired, own] as Parameters<typeof AggregatorRegistry.aggregate>[0]).metrics();
      })().then(
        (text) => worker.isConnected() && worker.send({ type: 'acd:metrics-scraped', id: message.id, text } satisfies ClusterMessage),
        (error: Error) =>
          worker.isConnected() && worker.send({ type: 'acd:metrics-scraped', id: message.id, error: error.message } satisfies ClusterMessage),
      );
    }
  });
}

// Metrics that belong to the process rather than to one app: Node's own (CPU, memory, event
// loop, GC), the upkeep passes and the rate limiters' syncs. They live in one registry of their
// own, made once per process; each app's /metrics appends it to the app's registry (HTTP,
// response cache, pool, dump age; http/middleware/metrics.ts). Never prom-client's global
// registry: tests build many apps in one process, and a metric registered twice throws.
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';

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
  failed(step: 'connect' | 'lock' | 'summaries' | 'rate-limit-prune' | 'sign-in-prune' | 'screenshot-sweep' | 'dump' | 'dump-prune'): void {
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

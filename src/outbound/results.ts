// What the outbound fetcher answers. Callers (ownership checks) show `detail` to site owners
// as it is, so it is one plain sentence, never an error message or a stack trace.

export type FetchFailure =
  | 'bad-url'
  | 'not-found'
  | 'address-refused'
  | 'redirect-refused'
  | 'too-slow'
  | 'too-large'
  | 'unreachable'
  | 'http-error';

export type FetchResult =
  | { ok: true; status: number; url: string; contentType: string | null; body: string }
  | { ok: false; reason: FetchFailure; detail: string; status?: number };

type TxtFailure = 'not-found' | 'too-slow' | 'unreachable' | 'bad-url';

export type TxtResult = { ok: true; records: string[] } | { ok: false; reason: TxtFailure; detail: string };

export type Failed = Extract<FetchResult, { ok: false }>;

export const failure = (reason: FetchFailure, detail: string, status?: number): Failed =>
  status === undefined ? { ok: false, reason, detail } : { ok: false, reason, detail, status };

/** "5 seconds", "1 second", "0.3 seconds". */
export function seconds(ms: number): string {
  const value = Math.round(ms / 100) / 10;
  return `${value} ${value === 1 ? 'second' : 'seconds'}`;
}

/** "64 KB" for whole kilobytes, else bytes. */
export function size(bytes: number): string {
  return bytes % 1024 === 0 ? `${bytes / 1024} KB` : `${bytes} bytes`;
}

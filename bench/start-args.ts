// How the benchmarks start a process: as `npm start` does (package.json's start script), so that
// the runtime flags the service is measured with are the ones it runs with, and the baselines
// get the same V8 flags (a fair baseline runs on the same runtime settings).
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const start = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start.split(/\s+/);
if (start[0] !== 'node' || start.at(-1) !== 'src/server.ts') throw new Error(`package.json's start script is not "node … src/server.ts": ${start.join(' ')}`);

/** The arguments after `node` in the start script (flags, --import tsx, src/server.ts). */
export const SERVICE_ARGS: readonly string[] = start.slice(1);

/** Its V8 flags alone (those that are not --import and its value, nor the script). */
export const V8_FLAGS: readonly string[] = SERVICE_ARGS.filter((arg, i, all) => arg.startsWith('--') && arg !== '--import' && all[i - 1] !== '--import');

// The service as its own process (`node src/server.ts`), as an operator starts it.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ServerProcess {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/**
 * `detached`: the service leads a process group of its own (its cluster workers join it), as
 * under a terminal or systemd, so that a test can signal the whole group (`process.kill(-pid)`).
 */
export function startServerProcess(env: Record<string, string>, options: { detached?: boolean } = {}): ServerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    // The child's own choices of port (its embedded database) keep to a slice of their own.
    env: { PATH: process.env.PATH, LOG_LEVEL: 'info', PORT_SLICE: String(8 + Number(process.env.VITEST_POOL_ID ?? 0)), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: options.detached ?? false,
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

export async function waitForReady(port: number, started: ServerProcess, timeoutMs = 90_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (started.child.exitCode !== null) throw new Error(`server exited early:\n${started.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/readyz`);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`not ready within ${timeoutMs} ms:\n${started.output()}`);
}

/** Stops a server process with SIGTERM and waits for it (SIGKILL after `timeoutMs`). */
export async function stopServerProcess(started: ServerProcess, timeoutMs = 20_000): Promise<number | null> {
  if (started.child.exitCode !== null) return started.child.exitCode;
  started.child.kill('SIGTERM');
  const timer = setTimeout(() => started.child.kill('SIGKILL'), timeoutMs);
  const code = await started.exited;
  clearTimeout(timer);
  return code;
}

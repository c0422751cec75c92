// A fleet on loopback (PROTOCOL.md §13, "Fleet"): pagewire instances as processes, and HAProxy in
// front of them running deploy/haproxy.cfg itself, as the fleet test and bench/fleet.ts use it.
// HAProxy takes no port 0, so ports are picked by binding to 0 first.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import process from 'node:process';
import { descendants } from './processes.ts';
import { ROOT, type ServerProcess, startServerProcess } from './server-process.ts';
import { waitUntil } from './wait.ts';

/** Debian's haproxy, or one on PATH; undefined when there is none. */
export function findHaproxy(): string | undefined {
  if (existsSync('/usr/sbin/haproxy')) return '/usr/sbin/haproxy';
  for (const dir of (process.env['PATH'] ?? '').split(':')) {
    if (dir && existsSync(`${dir}/haproxy`)) return `${dir}/haproxy`;
  }
  return undefined;
}

/** A port nothing listens on now (bound to 0, then released). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface Instance {
  readonly id: string;
  readonly port: number;
  readonly process: ServerProcess;
  /** `http://127.0.0.1:PORT` */
  readonly origin: string;
  /** The browser processes it launched, as of now. */
  browsers(): number[];
}

/** A `pagewire serve` process named `id`, on `port`. */
export async function startInstance(id: string, port: number, token: string, flags: string[] = []): Promise<Instance> {
  const started = await startServerProcess(['--port', String(port), '--token', token, '--instance-id', id, ...flags]);
  return {
    id,
    port,
    process: started,
    origin: `http://127.0.0.1:${port}`,
    browsers: () => descendants(started.pid).map((p) => p.pid),
  };
}

export interface Balancer {
  readonly port: number;
  /** `ws://127.0.0.1:PORT/` */
  readonly url: string;
  readonly origin: string;
  /** How HAProxy sees each instance now (UP, NOLB, DOWN, …), from its stats. */
  states(): Promise<Record<string, string>>;
  stop(): Promise<void>;
}

/**
 * HAProxy on deploy/haproxy.cfg in front of `ports` (pagewire-0, pagewire-1 in that order), its
 * health checks every `checkMs`; resolves once it has checked every instance up.
 */
export async function startBalancer(haproxy: string, ports: [number, number], checkMs: number): Promise<Balancer> {
  const port = await freePort();
  const statsPort = await freePort();
  // The stats page, for the test to see what the balancer thinks (not part of the deployed file).
  const folder = mkdtempSync(`${tmpdir()}/pagewire-haproxy-`);
  writeFileSync(`${folder}/stats.cfg`, `frontend stats\n  bind 127.0.0.1:${statsPort}\n  stats enable\n  stats uri /stats\n`);
  const child = spawn(
    haproxy,
    ['-db', '-f', `${ROOT}deploy/haproxy.cfg`, '-f', `${folder}/stats.cfg`],
    {
      env: {
        ...process.env,
        PAGEWIRE_LB_BIND: `127.0.0.1:${port}`,
        PAGEWIRE_0: `127.0.0.1:${ports[0]}`,
        PAGEWIRE_1: `127.0.0.1:${ports[1]}`,
        PAGEWIRE_CHECK_INTER: `${checkMs}ms`,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let gone = false;
  void exited.then(() => (gone = true));
  const states = async (): Promise<Record<string, string>> => {
    const csv = await (await fetch(`http://127.0.0.1:${statsPort}/stats;csv`)).text();
    const out: Record<string, string> = {};
    for (const line of csv.split('\n')) {
      const [proxy, server, ...rest] = line.split(',');
      if (proxy === 'instances' && server && server !== 'BACKEND') out[server] = rest[15] ?? '?';
    }
    return out;
  };
  const stop = async () => {
    if (!gone) child.kill('SIGKILL');
    await exited;
    rmSync(folder, { recursive: true, force: true });
  };
  try {
    await waitUntil(
      async (): Promise<Record<string, string>> => (gone ? { failed: stderr } : await states().catch(() => ({}))),
      (s) => 'failed' in s || (s['pagewire-0'] === 'UP' && s['pagewire-1'] === 'UP'),
      { what: 'haproxy up with both instances checked', timeoutMs: 10_000 },
    );
    if (gone) throw new Error(`haproxy exited: ${stderr}`);
  } catch (error) {
    await stop();
    throw error;
  }
  return { port, url: `ws://127.0.0.1:${port}/`, origin: `http://127.0.0.1:${port}`, states, stop };
}

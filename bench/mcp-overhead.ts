// `npm run bench:mcp`: what the MCP path adds to a call, against the same call over the
// WebSocket, on one pagewire process (`node dist/src/main.js`). The same observation of the same
// page is made in interleaved rounds (a) as `observe` over the WebSocket, (b) as
// `browser_observe` over /mcp with a plain HTTP POST (the server's side of MCP alone), and (c) as
// `browser_observe` through the official MCP client (SDK v2, what a host pays). Reported per
// call: the server process's CPU time (from /proc, which other work on the machine inflates far
// less than wall time) and the median wall time.
//
//   --calls N   timed calls per kind (default 300, in 5 interleaved rounds)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { TestClient } from '../test/helpers/client.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const ROUNDS = 5;
const calls = Number(process.argv[process.argv.indexOf('--calls') + 1] ?? 0) || 300;
/** A page with a form of twenty labelled fields: a typical observation, a few KB. */
const PAGE = `data:text/html,${
  encodeURIComponent(`<form>${
    Array.from({ length: 20 }, (_, i) => `<p><label>Field ${i} <input name="f${i}"></label>`).join('')
  }<button>Send</button></form>`)
}`;

const token = `bench-${crypto.randomUUID()}`;
const child = spawn(process.execPath, [`${ROOT}dist/src/main.js`, '--port', '0', '--token', token], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const line = await new Promise<string>((resolve) => child.stdout!.once('data', (chunk: Buffer) => resolve(String(chunk).trim())));
const wsUrl = line.replace('pagewire listening on ', '');
const mcpUrl = wsUrl.replace(/^ws:/, 'http:').replace('/?token=', '/mcp?token=');

/** CPU time of the server process so far, ms (utime + stime, in clock ticks of 10 ms). */
function serverCpuMs(): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const ws = await TestClient.connect(wsUrl);
const ids = await ws.call<{ session_id: string; target_id: string }>('session.create', { name: 'bench' });
const first = await ws.call<{ state_id: string }>('observe', ids);
await ws.call('act', { ...ids, state_id: first.state_id, action: 'navigate', url: PAGE });
const client = new Client({ name: 'pagewire-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
// A tools/call of the 2026-07-28 revision, as the SDK client sends it.
const body = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: {
    name: 'browser_observe',
    arguments: ids,
    _meta: {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'pagewire-bench', version: '1.0.0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    },
  },
});
const headers = {
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2026-07-28',
  'mcp-method': 'tools/call',
  'mcp-name': 'browser_observe',
};

const kinds: Record<string, () => Promise<unknown>> = {
  'observe over the WebSocket': () => ws.call('observe', ids),
  'browser_observe, plain HTTP POST': async () => {
    const response = await fetch(mcpUrl, { method: 'POST', headers, body });
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
    await response.text();
  },
  'browser_observe, SDK v2 client': () => client.callTool({ name: 'browser_observe', arguments: ids }),
};

const results = Object.fromEntries(Object.keys(kinds).map((name) => [name, { cpu: 0, wall: [] as number[] }]));
for (const run of Object.values(kinds)) for (let i = 0; i < 10; i++) await run();
const loadBefore = os.loadavg()[0]!;
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(kinds)) {
    const cpu0 = serverCpuMs();
    for (let i = 0; i < calls / ROUNDS; i++) {
      const t0 = performance.now();
      await run();
      results[name]!.wall.push(performance.now() - t0);
    }
    results[name]!.cpu += serverCpuMs() - cpu0;
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const base = results['observe over the WebSocket']!;
console.log(
  `pagewire MCP overhead, ${calls} calls per kind, ${os.cpus().length} cores, load average ${loadBefore.toFixed(1)} → ${
    os.loadavg()[0]!.toFixed(1)
  }`,
);
console.log('| call | server CPU ms/call | + vs WebSocket | wall median ms | + vs WebSocket |');
console.log('| --- | ---: | ---: | ---: | ---: |');
for (const [name, r] of Object.entries(results)) {
  const cpu = r.cpu / calls;
  const wall = median(r.wall);
  const plus = (value: number, against: number) => (r === base ? '' : `${value - against >= 0 ? '+' : ''}${(value - against).toFixed(2)}`);
  console.log(`| ${name} | ${cpu.toFixed(2)} | ${plus(cpu, base.cpu / calls)} | ${wall.toFixed(2)} | ${plus(wall, median(base.wall))} |`);
}

await client.close();
ws.close();
child.kill('SIGTERM');
await new Promise((resolve) => child.once('exit', resolve));

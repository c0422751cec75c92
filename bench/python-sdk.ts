// `npm run bench:python`: the Python SDK's own cost per call. One pagewire process
// (`node dist/src/main.js`); in interleaved rounds, the same calls on the same session (`observe` of
// a small form, and `server.info`, which touches no browser) over the WebSocket from Node (the
// floor: a bare `ws` client and a JSON-RPC frame), then from one Python process
// (bench/python_sdk.py, Debian's /usr/bin/python3): the asyncio client over the WebSocket, the sync
// client over POST /rpc, and the bare transports they sit on. The SDK's cost is its median minus
// the Node median of the same call in the same run; the bare Python rows split that into what
// Python and its transport cost and what the SDK adds on top.
//
//   --calls N   timed calls per kind and round (default 200, in 5 rounds)
import { spawnSync } from 'node:child_process';
import type { Buffer } from 'node:buffer';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import WebSocket from 'ws';
import { TestClient } from '../test/helpers/client.ts';
import { stats, table } from './common.ts';
import { FORM_PAGE, ROOT, startServerProcess } from './server-process.ts';

const ROUNDS = 5;
const WARMUPS = 5;
const calls = Number(process.argv[process.argv.indexOf('--calls') + 1] ?? 0) || 200;
const PAGE = FORM_PAGE;

const { child: server, url } = await startServerProcess();

const node = await TestClient.connect(url);
const { session_id } = await node.call<{ session_id: string }>('session.create', { name: 'bench-python' });
await node.call('tabs.new', { session_id, url: PAGE });
const answer = JSON.stringify(await node.call('observe', { session_id }));
node.close();

// The floor: a bare `ws` client, one JSON-RPC frame out and its answer parsed (no SDK, no checks).
const bare = new WebSocket(url, { perMessageDeflate: false });
await new Promise((resolve, reject) => bare.once('open', resolve).once('error', reject));
let nextId = 1;
const call = (method: string, params: object) =>
  new Promise<unknown>((resolve) => {
    bare.once('message', (data: Buffer) => resolve(JSON.parse(String(data))));
    bare.send(JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }));
  });

type Sample = { wall_ms: number[]; cpu_ms_per_call: number[] };
const samples = new Map<string, Sample>();
const add = (kind: string, wall: number[], cpu: number) => {
  const sample = samples.get(kind) ?? { wall_ms: [], cpu_ms_per_call: [] };
  sample.wall_ms.push(...wall);
  sample.cpu_ms_per_call.push(cpu);
  samples.set(kind, sample);
};

for (let round = 0; round < ROUNDS; round++) {
  for (const [method, params] of [['observe', { session_id }], ['server.info', {}]] as const) {
    for (let i = 0; i < WARMUPS; i++) await call(method, params);
    const wall: number[] = [];
    const cpu = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const started = performance.now();
      await call(method, params);
      wall.push(performance.now() - started);
    }
    const used = process.cpuUsage(cpu);
    add(`Node WebSocket ${method}`, wall, (used.user + used.system) / 1000 / calls);
  }
  const python = spawnSync('/usr/bin/python3', [`${ROOT}bench/python_sdk.py`, url, session_id, String(calls)], { encoding: 'utf8' });
  if (python.status !== 0) throw new Error(`bench/python_sdk.py failed: ${python.stderr}`);
  for (
    const [kind, result] of Object.entries(JSON.parse(python.stdout) as Record<string, { wall_ms: number[]; cpu_ms_per_call: number }>)
  ) {
    add(kind, result.wall_ms, result.cpu_ms_per_call);
  }
}

bare.close();
server.kill('SIGTERM');
await new Promise((resolve) => server.once('exit', resolve));

const median = (values: number[]) => stats(values).median_ms;
const floor = (kind: string) => samples.get(`Node WebSocket ${kind.endsWith('observe') ? 'observe' : 'server.info'}`)!;
const order = ['Node WebSocket', 'bare websockets', 'async SDK', 'bare http.client', 'sync SDK'];
const rows = [...samples.entries()]
  .sort(([a], [b]) => order.findIndex((p) => a.startsWith(p)) - order.findIndex((p) => b.startsWith(p)) || a.localeCompare(b))
  .map(([kind, sample]) => {
    const wall = median(sample.wall_ms);
    const base = median(floor(kind).wall_ms);
    return [
      kind,
      wall.toFixed(2),
      kind.startsWith('Node') ? '' : `${wall >= base ? '+' : '−'}${Math.abs(wall - base).toFixed(2)}`,
      median(sample.cpu_ms_per_call).toFixed(2),
      stats(sample.wall_ms).p90_ms.toFixed(2),
    ];
  });
const load = (await import('node:os')).loadavg().map((n) => n.toFixed(1)).join(' ');
console.log(`${ROUNDS} rounds of ${calls} calls per kind; observe answers ${answer.length} bytes; load average ${load}\n`);
console.log(table(['call', 'wall median ms', '+ vs Node WebSocket', 'client CPU ms/call', 'wall p90 ms'], rows));

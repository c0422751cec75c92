// `npm run bench:mcp`: what the MCP path adds to a call, against the same call over the
// WebSocket, on one pagewire process (`node dist/src/main.js`). The same observation of the same
// page is made in interleaved rounds (a) as `observe` over the WebSocket, (b) as
// `browser_observe` over /mcp with a plain HTTP POST (the server's side of MCP alone), and (c) as
// `browser_observe` through the official MCP client (SDK v2, after a tools/list as a host makes
// it, so it checks each result against the outputSchema). Reported per call: the server
// process's CPU time (from /proc, which other work on the machine inflates far less than wall
// time), this process's CPU time (the client's side) and the median wall time. The floors, in the
// same rounds, from processes of their own answering what /mcp answered: the smallest SDK v2
// server (bench/peers/mcp-floor-server.ts: pagewire's listed tools with their outputSchemas, the
// same answer) behind the least node:http glue, called with a plain POST and through the same SDK
// v2 client (what any MCP server and host on the SDK pay for this call); a bare node:http POST;
// and a bare WebSocket message (the two show what HTTP itself costs).
//
//   --calls N   timed calls per kind (default 300, in 5 interleaved rounds)
//   --floor     (internal) be the floor server
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { Buffer } from 'node:buffer';
import { createServer } from 'node:http';
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import WebSocket, { WebSocketServer } from 'ws';
import { TestClient } from '../test/helpers/client.ts';
import { median } from '../test/helpers/stats.ts';
import { FORM_PAGE, ROOT, startServerProcess } from './server-process.ts';

if (process.argv.includes('--floor')) await serveFloor();

const ROUNDS = 5;
const calls = Number(process.argv[process.argv.indexOf('--calls') + 1] ?? 0) || 300;
const PAGE = FORM_PAGE;

const { child, url: wsUrl } = await startServerProcess();
const mcpUrl = wsUrl.replace(/^ws:/, 'http:').replace('/?token=', '/mcp?token=');

/** CPU time of a server process so far, ms (utime + stime, in clock ticks of 10 ms). */
function serverCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const ws = await TestClient.connect(wsUrl);
const ids = await ws.call<{ session_id: string; target_id: string }>('session.create', { name: 'bench' });
const first = await ws.call<{ state_id: string }>('observe', ids);
await ws.call('act', { ...ids, state_id: first.state_id, action: 'navigate', url: PAGE });
const client = new Client({ name: 'pagewire-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await client.connect(new StreamableHTTPClientTransport(new URL(mcpUrl)));
const { tools } = await client.listTools();
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

// The floors answer what /mcp answers (the same bytes; the SDK floor the same tool result), so
// that the same amount crosses the same stack.
const answer = await (await fetch(mcpUrl, { method: 'POST', headers, body })).text();
const sdkFloor = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./peers/mcp-floor-server.ts', import.meta.url))], {
  cwd: ROOT,
  stdio: ['ignore', 'pipe', 'inherit'],
});
const sdkFloorUrl = await new Promise<string>((resolve) =>
  sdkFloor.stdout!.once('data', (chunk: Buffer) => resolve(String(chunk).trim().replace('mcp-floor listening on ', '')))
);
const handed = { tools, answers: { browser_observe: (JSON.parse(answer) as { result: unknown }).result } };
await (await fetch(`${sdkFloorUrl}answer`, { method: 'POST', body: JSON.stringify(handed) })).arrayBuffer();
const floorClient = new Client({ name: 'pagewire-bench', version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
await floorClient.connect(new StreamableHTTPClientTransport(new URL(sdkFloorUrl)));
await floorClient.listTools();
const floor = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--floor'], {
  cwd: ROOT,
  stdio: ['pipe', 'pipe', 'inherit'],
});
floor.stdin!.end(answer);
const floorUrl = await new Promise<string>((resolve) => floor.stdout!.once('data', (chunk: Buffer) => resolve(String(chunk).trim())));
const floorWs = new WebSocket(floorUrl.replace(/^http:/, 'ws:'));
await new Promise((resolve, reject) => floorWs.once('open', resolve).once('error', reject));
const floorMessage = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'observe', params: ids });

kinds['floor: bare SDK v2 server, plain HTTP POST'] = async () => {
  const response = await fetch(sdkFloorUrl, { method: 'POST', headers, body });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  await response.text();
};
kinds['floor: bare SDK v2 server, SDK v2 client'] = () => floorClient.callTool({ name: 'browser_observe', arguments: ids });
kinds['floor: bare node:http POST'] = async () => {
  const response = await fetch(floorUrl, { method: 'POST', headers, body });
  await response.text();
};
kinds['floor: bare WebSocket message'] = () =>
  new Promise((resolve) => {
    floorWs.once('message', resolve);
    floorWs.send(floorMessage);
  });
const serverOf = (name: string) => (name.includes('SDK v2 server') ? sdkFloor.pid! : name.startsWith('floor') ? floor.pid! : child.pid!);
const cpuOf = new Map<string, number>(Object.keys(kinds).map((name) => [name, serverOf(name)]));

const results = Object.fromEntries(Object.keys(kinds).map((name) => [name, { cpu: 0, client: 0, wall: [] as number[] }]));
for (const run of Object.values(kinds)) for (let i = 0; i < 10; i++) await run();
const loadBefore = os.loadavg()[0]!;
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, run] of Object.entries(kinds)) {
    const pid = cpuOf.get(name)!;
    const cpu0 = serverCpuMs(pid);
    const client0 = process.cpuUsage();
    for (let i = 0; i < calls / ROUNDS; i++) {
      const t0 = performance.now();
      await run();
      results[name]!.wall.push(performance.now() - t0);
    }
    results[name]!.cpu += serverCpuMs(pid) - cpu0;
    const client = process.cpuUsage(client0);
    results[name]!.client += (client.user + client.system) / 1000;
  }
}

/** What each row is compared with: the MCP rows with observe over the socket, the HTTP floor with the socket floor. */
const against: Record<string, string> = {
  'browser_observe, plain HTTP POST': 'observe over the WebSocket',
  'browser_observe, SDK v2 client': 'observe over the WebSocket',
  'floor: bare SDK v2 server, plain HTTP POST': 'floor: bare WebSocket message',
  'floor: bare SDK v2 server, SDK v2 client': 'floor: bare WebSocket message',
  'floor: bare node:http POST': 'floor: bare WebSocket message',
};
console.log(
  `pagewire MCP overhead, ${calls} calls per kind, ${os.cpus().length} cores, load average ${loadBefore.toFixed(1)} → ${
    os.loadavg()[0]!.toFixed(1)
  }`,
);
console.log(
  '| call | server CPU ms/call | + vs its socket row | client CPU ms/call | + vs its socket row | wall median ms | + vs its socket row |',
);
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: |');
const signed = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(2)}`;
for (const [name, r] of Object.entries(results)) {
  const base = against[name] === undefined ? undefined : results[against[name]!]!;
  const cpu = r.cpu / calls;
  const client = r.client / calls;
  const wall = median(r.wall);
  const plusCpu = base ? signed(cpu - base.cpu / calls) : '';
  const plusClient = base ? signed(client - base.client / calls) : '';
  const plusWall = base ? signed(wall - median(base.wall)) : '';
  console.log(
    `| ${name} | ${cpu.toFixed(2)} | ${plusCpu} | ${client.toFixed(2)} | ${plusClient} | ${wall.toFixed(2)} | ${plusWall} |`,
  );
}

await client.close();
await floorClient.close();
ws.close();
floorWs.close();
for (const server of [child, floor, sdkFloor]) {
  server.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
}

/**
 * The bare floor server, answering what /mcp answered (read from stdin): every POST (its body
 * parsed) and every socket message get the answer's bytes as they are.
 */
async function serveFloor(): Promise<never> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const answer = Buffer.concat(chunks);
  const server = createServer((req, res) => {
    const body: Buffer[] = [];
    req.on('data', (chunk: Buffer) => body.push(chunk));
    req.on('end', () => {
      JSON.parse(Buffer.concat(body).toString('utf8'));
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': answer.length }).end(answer);
    });
  });
  const sockets = new WebSocketServer({ server });
  sockets.on('connection', (socket) =>
    socket.on('message', (data) => {
      JSON.parse(String(data));
      socket.send(answer);
    }));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  console.log(`http://127.0.0.1:${(server.address() as { port: number }).port}/`);
  process.once('SIGTERM', () => process.exit(0));
  return new Promise<never>(() => {});
}

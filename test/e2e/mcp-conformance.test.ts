// The official MCP conformance suite (@modelcontextprotocol/conformance) against /mcp, for its
// server scenarios that apply to a server with tools of its own (the others expect the suite's
// own test tools). It runs under Deno: Node 20 lacks the fs.globSync it needs. The token goes in
// the URL, as a host that is only given a URL would send it.
import type { Buffer } from 'node:buffer';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { ROOT } from '../helpers/server-process.ts';
import { onTeardown } from '../helpers/teardown.ts';

const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];
const DENO = join(ROOT, 'node_modules/.bin/deno');
const SUITE = join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');

function conformance(url: string, scenario: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(DENO, ['run', '-A', SUITE, 'server', '--url', url, '--scenario', scenario], {
      cwd,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

const s = suite('mcp: the official conformance suite against /mcp');
let server: TestServer;
// The suite writes its results under its working directory: a temporary one.
let cwd: string;

s.before(async () => {
  server = await startTestServer();
  cwd = mkdtempSync(join(tmpdir(), 'pagewire-conformance-'));
  onTeardown(() => rmSync(cwd, { recursive: true, force: true }));
});

for (const scenario of SCENARIOS) {
  s(scenario, async () => {
    const { code, output } = await conformance(`${server.server.mcpUrl}?token=${encodeURIComponent(server.token)}`, scenario, cwd);
    const summary = /Passed: (\d+)\/(\d+), (\d+) failed/.exec(output);
    assert.ok(summary, output);
    assert.is(summary![3], '0', output);
    assert.is(summary![1], summary![2], output);
    assert.is(code, 0, output);
  });
}

s.run();

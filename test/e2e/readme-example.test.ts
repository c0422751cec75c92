// The README's client examples run as they are: the SDK example (through `pagewire/client`, the
// built package) and the raw JSON-RPC client (with the `ws` package of this repository), pasted
// into Node against a real server and real Chromium, print what the README says they print; and so
// does the raw client with the events example put before its `session.close`, as the README says.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';
import { sharedServer } from '../helpers/pagewire.ts';

const README = readFileSync(`${ROOT}README.md`, 'utf8');

/** The code of the fenced block between `<!-- example:NAME:start -->` and its end marker. */
function example(name: string): string {
  const block = new RegExp(`<!-- example:${name}:start -->\\n\`\`\`js\\n([\\s\\S]*?)\`\`\`\\n<!-- example:${name}:end -->`).exec(README);
  assert.ok(block, `README.md has the ${name} example between its markers`);
  return block[1]!;
}

/** Runs `code` as an ES module in Node from the repository's root (where `ws` resolves). */
function runInNode(code: string, url: string): Promise<{ code: number | null; output: string }> {
  // Under Deno, execPath is deno itself: the example is for Node.
  const child = spawn(IS_DENO ? 'node' : process.execPath, ['--input-type=module', '-'], {
    cwd: ROOT,
    env: { ...process.env, PAGEWIRE_URL: url },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stdin.end(code);
  return new Promise((resolve) => child.on('close', (exit) => resolve({ code: exit, output })));
}

const s = suite('readme example');

const FIRST_LOOK = [
  'heading "Welcome" [level=1]',
  'button "Sign in" @1',
  'completed completed captured',
  'heading "Welcome" [level=1]',
  'button "Signed in" [focused] @1',
  '',
].join('\n');

s("the SDK example (the README's first client) opens a data: page, clicks the button it saw, and prints the outcome", async () => {
  // It imports `pagewire/client`, which resolves to the built dist/ from the repository's root.
  assert.ok(existsSync(`${ROOT}dist/src/client/index.js`), 'dist/src/client/index.js is missing: run `npm run build`');
  const { url } = await sharedServer();
  const { code, output } = await runInNode(example('sdk'), url);
  assert.is(code, 0, output);
  assert.is(output, FIRST_LOOK);
});

s('the client example observes a data: page, clicks the button it saw, and prints the outcome', async () => {
  const { url } = await sharedServer();
  const { code, output } = await runInNode(example('client'), url);
  assert.is(code, 0, output);
  assert.is(output, FIRST_LOOK, 'the raw client prints what the SDK example prints');
});

s('the events example, put before session.close, prints the navigation and console events', async () => {
  const { url } = await sharedServer();
  const client = example('client');
  const close = "await call('session.close', { session_id });";
  assert.ok(client.includes(close));
  const { code, output } = await runInNode(client.replace(close, `${example('events')}${close}`), url);
  assert.is(code, 0, output);
  assert.match(output, "completed [ 'navigation' ]");
  assert.match(output, /event: navigation \{[^}]*url: 'data:text\/html,…',\s*same_document: false/);
  assert.match(output, "event: console { level: 'log', text: 'hello' }");
});

s.run();

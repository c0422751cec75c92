// The README's client example runs as it is: its code, pasted into Node with the `ws` package of
// this repository, against a real server and real Chromium, prints what the README says it prints;
// and so does it with the events example put before its `session.close`, as the README says.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
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

s('the client example observes a data: page, clicks the button it saw, and prints the outcome', async () => {
  const { url } = await sharedServer();
  const { code, output } = await runInNode(example('client'), url);
  assert.is(code, 0, output);
  assert.is(
    output,
    [
      'heading "Welcome" [level=1]',
      'button "Sign in" @1',
      'completed completed captured',
      'heading "Welcome" [level=1]',
      'button "Signed in" [focused] @1',
      '',
    ].join('\n'),
  );
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

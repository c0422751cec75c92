// The soak (test/soak/soak.ts, `npm run soak`) inside the test run: a short profile (30 s of load,
// sampled every 2 s, so that with start and wind-down it adds about a minute) when
// PAGEWIRE_SOAK=1 or CI=true (PAGEWIRE_SOAK_MINUTES changes the length; the long soak is
// `npm run soak -- --minutes N`), on both passes: the Node
// pass soaks `node dist/src/main.js`, the Deno pass the server on Deno. Otherwise the script must
// at least load and answer --help, so that it cannot rot unnoticed. Four clients: renderers crashed under that load
// (issue 16 point 3), and the soak fails on any crash event and on any observation that lacks the
// controls of the page its tab is on.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';

const enabled = process.env['PAGEWIRE_SOAK'] === '1' || process.env['CI'] === 'true';
const minutes = process.env['PAGEWIRE_SOAK_MINUTES'] ?? '0.5';

interface Outcome {
  code: number | null;
  output: string;
}

/** Runs `node --import tsx test/soak/soak.ts ARGS`, echoing its lines as they come, within `budgetMs`. */
function runSoak(args: string[], budgetMs: number, echo: boolean): Promise<Outcome> {
  // Under Deno, execPath is deno itself: the soak is a Node script.
  const node = IS_DENO ? 'node' : process.execPath;
  const child = spawn(node, ['--import', 'tsx', 'test/soak/soak.ts', ...args], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let partial = '';
  const onData = (chunk: Buffer) => {
    const text = chunk.toString();
    output += text;
    if (!echo) return;
    partial += text;
    const lines = partial.split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) console.log(`  soak | ${line}`);
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      output += `\n(the soak ran past ${budgetMs / 1000} s and was killed)`;
      child.kill('SIGINT');
    }, budgetMs);
    child.once('close', (code) => {
      clearTimeout(timer);
      if (echo && partial) console.log(`  soak | ${partial}`);
      resolve({ code, output });
    });
  });
}

const s = suite('soak');

s('test/soak/soak.ts answers --help and refuses bad arguments', async () => {
  const help = await runSoak(['--help'], 60_000, false);
  assert.is(help.code, 0, help.output);
  for (const flag of ['--minutes N', '--clients N', '--subscribers N', '--sample-s N', '--json FILE']) {
    assert.ok(help.output.includes(flag), flag);
  }
  const bad = await runSoak(['--minutes', 'soon'], 60_000, false);
  assert.is(bad.code, 2, bad.output);
  assert.match(bad.output, /--minutes must be a number/);
});

if (enabled) {
  // Each pass soaks the server on its own runtime: Node runs dist/, Deno runs the sources.
  const runtime = IS_DENO ? 'Deno' : 'Node';
  s(
    `a ${minutes}-minute soak of 4 clients against the server on ${runtime}: no protocol error, no crash, every page observed whole, no growth, clean shutdown`,
    async () => {
      if (!IS_DENO) assert.ok(existsSync(`${ROOT}dist/src/main.js`), 'dist/src/main.js is missing: run `npm run build`');
      const budgetMs = Number(minutes) * 60_000 + 10 * 60_000;
      const run = await runSoak(
        ['--minutes', minutes, '--clients', '4', '--sample-s', '2', ...(IS_DENO ? ['--deno'] : [])],
        budgetMs,
        true,
      );
      assert.match(run.output, /soak result: PASS/, 'the soak summary above says what failed');
      assert.is(run.code, 0);
    },
  );
} else {
  s('the full soak runs only when PAGEWIRE_SOAK=1 or CI=true', () => {
    assert.ok(existsSync(`${ROOT}test/soak/soak.ts`));
    assert.ok(!enabled);
  });
}

s.run();

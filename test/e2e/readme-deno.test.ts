// The README's Deno start command, run exactly as the README writes it (from the project's root,
// as a user would after the set-up): it must print the ready line, serve a call that launches the
// browser, and leave nothing behind on Ctrl+C (SIGINT to the terminal's process group). Deno's task
// runner once took `node_modules/.bin/deno` for a JavaScript file and died with a SyntaxError.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { TestClient } from '../helpers/client.ts';
import { descendants, waitUntilGone } from '../helpers/processes.ts';
import { IS_DENO, ROOT } from '../helpers/server-process.ts';

const s = suite('README Deno command');

/** The command the README gives for starting on Deno (the code span that holds `deno task start`). */
function readmeDenoCommand(): string {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const found = /`((?:npx )?deno task start)`/.exec(readme);
  assert.ok(found, 'the README names a `deno task start` command');
  return found[1]!;
}

function firstLine(stream: NodeJS.ReadableStream): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const onData = (chunk: Buffer) => {
      text += chunk.toString();
      const newline = text.indexOf('\n');
      if (newline === -1) return;
      stream.off('data', onData);
      stream.resume();
      resolve(text.slice(0, newline));
    };
    stream.on('data', onData);
    stream.once('end', () => reject(new Error(`no ready line; stdout ended after ${JSON.stringify(text)}`)));
  });
}

// The Node pass runs it; the Deno pass would run the same command a second time.
if (!IS_DENO) {
  s('starts the server with a browser, and Ctrl+C leaves no process behind', async () => {
    const command = readmeDenoCommand();
    const [program, ...args] = command.split(' ');
    const child = spawn(program!, args, {
      cwd: ROOT,
      detached: true, // its own process group, as a terminal's foreground job
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, PAGEWIRE_PORT: '0', PAGEWIRE_TOKEN: 'readme-deno-token' },
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const line = await Promise.race([
        firstLine(child.stdout!),
        exit.then((code) => Promise.reject(new Error(`\`${command}\` exited with ${code}: ${stderr}`))),
      ]);
      assert.match(line, /^pagewire listening on ws:\/\/127\.0\.0\.1:\d+\/\?token=readme-deno-token$/);
      const client = await TestClient.connect(line.replace('pagewire listening on ', ''));
      const observation = await client.call<{ state_id: string; url: string }>('observe');
      assert.is(observation.url, 'about:blank');
      assert.ok(observation.state_id);
      const running = descendants(child.pid!).map((p) => p.pid);
      assert.ok(running.length > 1, 'the server and its browser run under the command');
      client.close();
      process.kill(-child.pid!, 'SIGINT');
      const code = await exit;
      assert.ok(code === 0 || code === null || code === 130, `exit ${code}: ${stderr}`);
      assert.equal(await waitUntilGone(running, 15_000), [], 'every process the command started is gone');
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
}

s.run();

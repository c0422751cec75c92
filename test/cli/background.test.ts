// The CLI with no set-up: from a clean home directory and no server named, the first command
// starts a background server (loopback, a random token in an owner-only file, its browser when a
// call needs one), later commands find it, one that died is replaced, and `pagewire stop` ends it
// and its browser.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { readServerFile } from '../../src/cli/background.ts';
import { runCli } from '../helpers/cli-process.ts';
import { fixtureServer } from '../helpers/fixture-server.ts';
import { descendants, isAlive, waitUntilGone } from '../helpers/processes.ts';
import { onTeardown } from '../helpers/teardown.ts';

const s = suite('CLI background server');
let home: string;
const env = () => ({ HOME: home, XDG_STATE_HOME: join(home, 'state'), PAGEWIRE_URL: '', PAGEWIRE_TOKEN: '' });
const serverFile = () => readServerFile(join(home, 'state', 'pagewire'));

s.before(() => {
  home = mkdtempSync(join(tmpdir(), 'pagewire-cli-home-'));
  onTeardown(async () => {
    // Whatever a failed test left: the server and its browser never outlive the run.
    await runCli(['stop'], env());
    rmSync(home, { recursive: true, force: true });
  });
});

s('the first command starts a server, later ones find it, a dead one is replaced, stop ends it and its browser', async () => {
  const fixtures = await fixtureServer();
  const first = await runCli(['open', fixtures.url('/form.html')], env());
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /textbox "Email"/);
  const started = serverFile();
  assert.ok(started, 'the server file is written');
  assert.match(started!.url, /^ws:\/\/127\.0\.0\.1:\d+\/\?token=/);
  assert.is(statSync(join(home, 'state', 'pagewire', 'server.json')).mode & 0o777, 0o600, 'owner-only: it holds the token');
  assert.ok(isAlive(started!.pid));
  const browser = descendants(started!.pid).map((proc) => proc.pid);
  assert.ok(browser.length > 0, 'its browser runs (launched for open)');

  const later = await runCli(['observe'], env());
  assert.is(later.code, 0, later.stderr);
  assert.match(later.stdout, /textbox "Email"/, 'the same server and session: the page opened before');
  assert.equal(serverFile(), started, 'found, not started again');

  // A server that died is noticed: the next command starts another, never hangs.
  process.kill(started!.pid, 'SIGKILL');
  assert.equal(await waitUntilGone([started!.pid, ...browser], 15_000), [], 'the killed server and its browser are gone');
  const again = await runCli(['open', fixtures.url('/form.html')], env());
  assert.is(again.code, 0, again.stderr);
  const restarted = serverFile();
  assert.ok(restarted && restarted.pid !== started!.pid, 'a new server');

  const newBrowser = descendants(restarted!.pid).map((proc) => proc.pid);
  const stopped = await runCli(['stop'], env());
  assert.is(stopped.code, 0, stopped.stderr);
  assert.match(stopped.stdout, new RegExp(`stopped the background server \\(pid ${restarted!.pid}\\)`));
  assert.equal(await waitUntilGone([restarted!.pid, ...newBrowser], 15_000), [], 'the server and its browser are gone');
  assert.is(serverFile(), undefined);
  const none = await runCli(['stop'], env());
  assert.is(none.code, 0);
  assert.match(none.stdout, /no background server was running/);
});

s('a server named by PAGEWIRE_URL wins: nothing is started', async () => {
  const unreachable = await runCli(['observe'], { ...env(), PAGEWIRE_URL: 'ws://127.0.0.1:1/' });
  assert.is(unreachable.code, 3);
  assert.match(unreachable.stderr, /cannot connect to ws:\/\/127\.0\.0\.1:1\//);
  assert.is(serverFile(), undefined);
});

s.run();

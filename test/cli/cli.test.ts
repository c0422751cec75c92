// The `pagewire` client commands as processes against a real server and Chromium: the page as a
// tree, acts on the observation printed last, a refusal with the fresh tree when the page moved
// on, the state file (owner-only, no token, nothing typed), events since the last look, dialogs,
// screenshots, --json, and the exit codes (0 done, 1 fell short, 2 usage, 3 transport/server).
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { type CliRun, runCli, traceViewer } from '../helpers/cli-process.ts';
import { descendants } from '../helpers/processes.ts';
import { type FixtureServer, fixtureServer } from '../helpers/fixture-server.ts';
import { sharedServer, startTestServer, type TestServer } from '../helpers/pagewire.ts';
import { launchDebuggableBrowser } from '../helpers/debuggable-browser.ts';
import { IS_DENO, ROOT, startServerProcess } from '../helpers/server-process.ts';
import { onTeardown } from '../helpers/teardown.ts';
import { existsSync } from 'node:fs';

const s = suite('pagewire CLI');
let server: TestServer;
let fixtures: FixtureServer;
let direct: TestClient;
let stateHome: string;

s.before(async () => {
  if (!IS_DENO) assert.ok(existsSync(`${ROOT}dist/src/main.js`), 'dist/src/main.js is missing: run `npm run build`');
  server = await sharedServer();
  fixtures = await fixtureServer();
  direct = await server.connect();
  stateHome = mkdtempSync(join(tmpdir(), 'pagewire-cli-state-'));
  onTeardown(() => rmSync(stateHome, { recursive: true, force: true }));
});
const sessions: string[] = [];
s.after(async () => {
  for (const session_id of sessions) await direct.call('session.close', { session_id }).catch(() => {});
  direct.close();
});

async function newSession(name: string): Promise<string> {
  const { session_id } = await direct.call<{ session_id: string }>('session.create', { name });
  sessions.push(session_id);
  return session_id;
}

function cli(session: string | undefined, ...args: string[]): Promise<CliRun> {
  return runCli([...args, ...(session ? ['--session', session] : [])], { PAGEWIRE_URL: server.url, XDG_STATE_HOME: stateHome });
}

function refIn(output: string, pattern: RegExp): string {
  const line = output.split('\n').find((l) => pattern.test(l));
  const ref = line?.match(new RegExp(`${pattern.source}[^@\\n]*?(@\\d+)`))?.[1];
  if (!ref) throw new Error(`no ${pattern} with a ref in\n${output}`);
  return ref;
}

s(
  'open prints the tree; click acts on it; a page that moved on is refused with the fresh tree and acted on after; the state file keeps no secret',
  async () => {
    const session = await newSession('cli-flow');
    const opened = await cli(session, 'open', fixtures.url('/sdk/checkout.html?delay=50'));
    assert.is(opened.code, 0, opened.stderr);
    assert.match(opened.stdout, /^page: "Checkout · Acme Store" http:\/\/127\.0\.0\.1:\d+\/sdk\/checkout\.html/);
    assert.match(opened.stdout, /button "Place order" @\d+/);
    const place = refIn(opened.stdout, /button "Place order"/);

    const clicked = await cli(session, 'click', place, '--wait-text', 'Order confirmed (1)');
    assert.is(clicked.code, 0, clicked.stdout + clicked.stderr);
    assert.match(clicked.stdout, new RegExp(`^verified: click ${place} → "Checkout · Acme Store" http://`));
    assert.is(clicked.stdout.trim().split('\n').length, 1, 'one status line');

    // Someone else observes: the CLI's saved observation is superseded.
    await direct.call('observe', { session_id: session });
    const refused = await cli(session, 'click', place);
    assert.is(refused.code, 1);
    assert.match(refused.stdout, /^stale_observation \(stale_state\): click @\d+: /);
    assert.match(refused.stdout, /the page moved on; this is it now:\npage: "Checkout · Acme Store"/);
    assert.match(refused.stdout, /"Orders placed: 1"/, 'nothing ran');
    const again = await cli(session, 'click', place, '--wait-text', 'Order confirmed (2)');
    assert.is(again.code, 0, again.stdout);

    const note = refIn(opened.stdout, /textbox "Note"/);
    const typed = await cli(session, 'type', note, 'ring twice please', '--json');
    assert.is(typed.code, 0, typed.stderr);
    const wire = JSON.parse(typed.stdout) as { status: string; fresh_state: { state_id: string } };
    assert.is(wire.status, 'completed');

    const files = readdirSync(join(stateHome, 'pagewire'));
    assert.is(files.filter((f) => f.endsWith('.json')).length >= 1, true);
    for (const file of files) {
      const path = join(stateHome, 'pagewire', file);
      assert.is(statSync(path).mode & 0o777, 0o600, `${file} is the owner's only`);
      const text = readFileSync(path, 'utf8');
      assert.not.match(text, server.token, 'no token');
      assert.not.match(text, 'ring twice', 'nothing typed');
    }
    assert.is(statSync(join(stateHome, 'pagewire')).mode & 0o777, 0o700);
    const saved = files.map((f) => readFileSync(join(stateHome, 'pagewire', f), 'utf8')).find((t) => t.includes(`#${session}"`));
    assert.ok(saved?.includes(wire.fresh_state.state_id), 'the fresh state of the last act is what the next command acts on');
  },
);

s(
  'every act of the wire: a batch as JSON, a point with modifiers, several values, drag, expect, screenshot on error, frames, since, cancel, session close',
  async () => {
    const session = await newSession('cli-wire');
    const page = 'data:text/html,' + encodeURIComponent(`<title>Desk</title>
    <style>#corner { position: fixed; left: 10px; top: 10px; width: 120px; height: 40px; } body { padding-top: 60px; }</style>
    <p id="status">idle</p>
    <button id="corner" onclick="document.getElementById('status').textContent = (event.shiftKey ? 'shift ' : '') + 'corner'">Corner</button>
    <label>Toppings <select id="top" multiple onchange="document.getElementById('status').textContent = 'picked ' + [...this.selectedOptions].map((o) => o.value).join(',')">
      <option value="a">Anchovy</option><option value="b">Basil</option><option value="c">Cheese</option></select></label>
    <form onsubmit="event.preventDefault(); document.getElementById('status').textContent = 'sent ' + this.q.value"><label>Query <input name="q"></label></form>
    <div id="card" draggable="true" ondragstart="event.dataTransfer.setData('text/plain', 'card')">Card</div>
    <div role="region" aria-label="Done column" ondragover="event.preventDefault()" ondrop="event.preventDefault(); document.getElementById('status').textContent = 'dropped ' + event.dataTransfer.getData('text/plain')">Done</div>
    <iframe title="Help" srcdoc="<button>Help</button>"></iframe>`);
    const opened = await cli(session, 'open', page);
    assert.is(opened.code, 0, opened.stderr);
    const toppings = refIn(opened.stdout, /listbox "Toppings"/);
    const query = refIn(opened.stdout, /textbox "Query"/);
    const card = refIn(opened.stdout, /group/);
    const done = refIn(opened.stdout, /region "Done column"/);

    const picked = await cli(session, 'select', toppings, 'a', 'c', '--expect', '#status', '--expect-text', 'picked a,c');
    assert.is(picked.code, 0, picked.stdout + picked.stderr);
    assert.match(picked.stdout, /^verified: select "a", "c" in @\d+/);
    const point = await cli(session, 'click', '--x', '50', '--y', '30', '--modifiers', 'Shift', '--wait-text', 'shift corner');
    assert.is(point.code, 0, point.stdout + point.stderr);
    const batch = await cli(
      session,
      'act',
      JSON.stringify({ actions: [{ action: 'fill', ref: query, text: 'tea' }, { action: 'press', key: 'Enter', ref: query }] }),
      '--wait-text',
      'sent tea',
    );
    assert.is(batch.code, 0, batch.stdout + batch.stderr);
    assert.match(batch.stdout, /^verified: fill @\d+, press @\d+/);
    const dragged = await cli(session, 'drag', card, done, '--wait-text', 'dropped card');
    assert.is(dragged.code, 0, dragged.stdout + dragged.stderr);
    const frames = await cli(session, 'frames');
    assert.is(frames.code, 0, frames.stderr);
    assert.is(frames.stdout.trim().split('\n').length, 2, frames.stdout);
    assert.match(frames.stdout, /\(main\)/);
    const since = await cli(session, 'observe', '--since');
    assert.match(since.stdout, /^since the last look: \d+ added, \d+ changed, \d+ removed/);
    const shot = join(stateHome, 'failed.png');
    const unmet = await cli(
      session,
      'click',
      refIn(since.stdout, /button "Corner"/),
      '--expect',
      '#status',
      '--expect-text',
      'never',
      '--screenshot',
      'on_error',
      '--screenshot-file',
      shot,
    );
    assert.is(unmet.code, 1, unmet.stdout + unmet.stderr);
    assert.match(unmet.stdout, /^condition_not_met/);
    assert.equal([...readFileSync(shot).subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG of the failed act');
    const idle = await cli(session, 'cancel');
    assert.match(idle.stdout, /nothing was running/);
    const closed = await cli(session, 'session', 'close');
    assert.is(closed.code, 0, closed.stderr);
    assert.match((await cli(session, 'observe')).stderr, /session_not_found/);
  },
);

s('observe --max-bytes cuts a big page and --cursor reads on; a covered link says what covers it and what dismisses it', async () => {
  const session = await newSession('cli-parts');
  const opened = await cli(session, 'open', fixtures.url('/large-table.html'));
  assert.is(opened.code, 0, opened.stderr);
  const first = await cli(session, 'observe', '--max-bytes', '3000');
  assert.is(first.code, 0, first.stderr);
  const cursor = /^more: pagewire observe --cursor (\S+)$/m.exec(first.stdout)?.[1];
  assert.ok(cursor, first.stdout);
  const next = await cli(session, 'observe', '--cursor', cursor!, '--max-bytes', '3000');
  assert.is(next.code, 0, next.stderr);
  const lastLine = (out: string) => out.split('\n').filter((l) => / @\d+/.test(l)).at(-1)!;
  assert.is.not(lastLine(next.stdout), lastLine(first.stdout), 'the next part goes on from the first');
  const bad = await cli(session, 'observe', '--max-bytes', '10');
  assert.is(bad.code, 2, bad.stdout);
  const consent = await cli(session, 'open', fixtures.url('/news-consent.html'));
  assert.match(consent.stdout, /^covered by region "Cookie banner": [@\d ]+; @\d+ dismisses it$/m);
});

s('find prints only the matching elements with their paths; click acts on a ref it printed', async () => {
  const session = await newSession('cli-find');
  const opened = await cli(session, 'open', fixtures.url('/sdk/checkout.html'));
  assert.is(opened.code, 0, opened.stderr);
  const found = await cli(session, 'find', 'place', 'ORDER', '--role', 'button');
  assert.is(found.code, 0, found.stderr);
  const lines = found.stdout.trim().split('\n');
  assert.match(lines[0]!, /^page: "Checkout · Acme Store"/);
  assert.is(lines.length, 2, found.stdout);
  assert.match(lines[1]!, /^(.+ › )?button "Place order" @\d+/);
  const place = refIn(found.stdout, /button "Place order"/);
  const clicked = await cli(session, 'click', place, '--wait-text', 'Order confirmed (1)');
  assert.is(clicked.code, 0, clicked.stdout + clicked.stderr);
  const none = await cli(session, 'find', 'no-such-words-here');
  assert.match(none.stdout, /^no element matches "no-such-words-here"$/m);
  assert.is((await cli(session, 'find')).code, 2, 'find needs words');
});

s('wait prints met and the page once the text shows; one that runs out exits 1 with the page as it is', async () => {
  const session = await newSession('cli-wait');
  const opened = await cli(session, 'open', '--new-tab', fixtures.url('/autosave.html'));
  assert.is(opened.code, 0, opened.stderr);
  const met = await cli(session, 'wait', 'Draft restored', '--timeout', '10000');
  assert.is(met.code, 0, met.stdout + met.stderr);
  assert.match(met.stdout, /^met: "Draft restored"\npage: "Draft"/);
  assert.match(met.stdout, /Draft restored/);
  const unmet = await cli(session, 'wait', '--selector', '#published', '--timeout', '300');
  assert.is(unmet.code, 1, unmet.stdout + unmet.stderr);
  assert.match(unmet.stdout, /^condition_not_met: "#published"\npage: "Draft"/);
  const usage = await cli(session, 'wait', 'a', '--selector', 'b');
  assert.is(usage.code, 2);
});

s('read URL loads the page and prints its main content as Markdown; click acts on a ref it printed', async () => {
  const session = await newSession('cli-read');
  const read = await cli(session, 'read', fixtures.url('/release-notes.html'));
  assert.is(read.code, 0, read.stdout + read.stderr);
  assert.match(read.stdout, /^page: "Release notes 4\.2 — Widgets Cloud"/);
  assert.ok(read.stdout.includes('\n## Plans compared\n\n| Plan | Exports per day | Formats |\n'), read.stdout);
  assert.not.match(read.stdout, /heading "/);
  const ref = /\[migration guide\]\((@\d+)\)/.exec(read.stdout)![1]!;
  const clicked = await cli(session, 'click', ref);
  assert.is(clicked.code, 0, clicked.stdout + clicked.stderr);
  assert.match(clicked.stdout, /Child frame/);
  const again = await cli(session, 'read');
  assert.is(again.code, 0, again.stderr);
  assert.match(again.stdout, /^page: "Child frame"/);
});

s('session new prints an id the next commands use, on a farm endpoint when the server allows one; session close ends it', async () => {
  const made = await cli(undefined, 'session', 'new', '--name', 'cli-made', '--json');
  assert.is(made.code, 0, made.stderr);
  const { session_id } = JSON.parse(made.stdout) as { session_id: string; endpoint?: string };
  sessions.push(session_id);
  const opened = await cli(session_id, 'open', fixtures.url('/counter.html'));
  assert.is(opened.code, 0, opened.stderr);
  const listed = await direct.call<{ sessions: Array<{ session_id: string; name: string }> }>('session.list', {});
  assert.is(listed.sessions.find((each) => each.session_id === session_id)?.name, 'cli-made');
  const refused = await cli(undefined, 'session', 'new', '--endpoint', 'http://127.0.0.1:9/');
  assert.is(refused.code, 3);
  assert.match(refused.stderr, /--allow-endpoint/);
  assert.is((await cli(session_id, 'session', 'close', '--name', 'x')).code, 2);
  assert.is((await cli(session_id, 'session', 'close')).code, 0);

  const farm = await launchDebuggableBrowser();
  const allowing = await startTestServer(['--allow-endpoint', 'http://127.0.0.1:*']);
  try {
    const env = { PAGEWIRE_URL: allowing.url, XDG_STATE_HOME: stateHome };
    const placed = await runCli(['session', 'new', '--endpoint', farm.endpoint], env);
    assert.is(placed.code, 0, placed.stderr);
    const id = /^session (s_\S+) on endpoint c1: /.exec(placed.stdout)?.[1];
    assert.ok(id, placed.stdout);
    const there = await runCli(['open', fixtures.url('/counter.html'), '--session', id!], env);
    assert.is(there.code, 0, there.stderr);
    assert.match(there.stdout, /button "Increment" @\d+/);
    assert.is((await runCli(['session', 'close', '--session', id!], env)).code, 0);
  } finally {
    await allowing.server.close();
    await farm.kill();
  }
});

s('exit codes: 1 for an act that fell short (with the fresh tree), 2 for usage, 3 for transport and server errors', async () => {
  const session = await newSession('cli-codes');
  const opened = await cli(session, 'open', fixtures.url('/sdk/checkout.html'));
  assert.is(opened.code, 0, opened.stderr);
  const missing = await cli(session, 'click', '@999');
  assert.is(missing.code, 1);
  assert.match(missing.stdout, /^stale_reference \(ref_not_found\): click @999/);
  assert.match(missing.stdout, /button "Place order" @\d+/);

  for (
    const args of [['click'], ['click', 'Place'], ['scroll', 'sideways'], ['observe', '--bogus'], ['frobnicate'], ['check', '@1', 'maybe']]
  ) {
    const run = await cli(session, ...args);
    assert.is(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
    assert.match(run.stderr, /pagewire/);
  }
  const unreachable = await runCli(['observe', '--url', 'ws://127.0.0.1:1/'], { XDG_STATE_HOME: stateHome });
  assert.is(unreachable.code, 3);
  assert.match(unreachable.stderr, /cannot connect to ws:\/\/127\.0\.0\.1:1\//);
  const noSession = await cli('s_not_a_session', 'observe');
  assert.is(noSession.code, 3);
  assert.match(noSession.stderr, /session_not_found/);
  const wrongToken = await runCli(['tabs', '--url', server.url.replace(/token=[^&]+/, 'token=wrong')], { XDG_STATE_HOME: stateHome });
  assert.is(wrongToken.code, 3);
  assert.not.match(wrongToken.stderr, 'wrong', 'the URL is printed without its token');
});

s('events prints what happened since the last look, once; a dialog is answered with dialog accept; screenshot and tabs', async () => {
  const session = await newSession('cli-events');
  const opened = await cli(session, 'open', fixtures.url('/sdk/checkout.html'));
  const tick = refIn(opened.stdout, /"Log tick"/);
  assert.is((await cli(session, 'click', tick)).code, 0);
  const first = await cli(session, 'events');
  assert.is(first.code, 0, first.stderr);
  assert.match(first.stdout, /^#\d+ navigation \[[^\]]+\] http:\/\/127\.0\.0\.1:\d+\/sdk\/checkout\.html/m);
  assert.match(first.stdout, /^#\d+ console \[[^\]]+\] log "tick 1"$/m);
  assert.is((await cli(session, 'events')).stdout, '', 'nothing new');
  assert.is((await cli(session, 'click', tick)).code, 0);
  const second = await cli(session, 'events', '--kinds', 'console');
  assert.equal(second.stdout.trim().split('\n').map((l) => l.replace(/^#\d+ /, '')), [
    `console [${second.stdout.match(/\[([^\]]+)\]/)![1]}] log "tick 2"`,
  ]);

  const alertPage = await cli(session, 'open', fixtures.url('/alert.html'));
  const alertButton = refIn(alertPage.stdout, /button "Alert me"/);
  const interrupted = await cli(session, 'click', alertButton);
  assert.is(interrupted.code, 1, 'an act a dialog interrupted fell short of its end');
  assert.match(interrupted.stdout, /^interrupted/);
  const observed = await cli(session, 'observe');
  assert.match(observed.stdout, /^dialog: alert "Hello from alert" \(pagewire dialog accept\|dismiss\)$/m);
  const accepted = await cli(session, 'dialog', 'accept');
  assert.is(accepted.code, 0, accepted.stderr);
  assert.is(accepted.stdout, 'accepted alert "Hello from alert"\n');
  assert.is((await cli(session, 'dialog', 'accept')).code, 3, 'no_modal');

  const file = join(stateHome, 'shot.png');
  const shot = await cli(session, 'screenshot', file);
  assert.is(shot.code, 0, shot.stderr);
  assert.match(shot.stdout, /shot\.png: image\/png \d+x\d+, \d+ bytes/);
  assert.equal([...readFileSync(file).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const tabs = await cli(session, 'tabs', '--json');
  const listed = JSON.parse(tabs.stdout) as { tabs: Array<{ selected: boolean; url: string }> };
  assert.ok(listed.tabs.some((t) => t.selected && t.url.endsWith('/alert.html')));
});

s('screenshot --annotate draws the refs of the observation printed last; --refs only those; without an observation: usage', async () => {
  const fresh = await newSession('cli-annotate-none');
  const none = await cli(fresh, 'screenshot', join(stateHome, 'none.png'), '--annotate');
  assert.is(none.code, 2, 'a usage error');
  assert.match(none.stderr, /--annotate needs an observation first/);

  const session = await newSession('cli-annotate');
  const opened = await cli(session, 'open', fixtures.url('/team-console.html'));
  const invite = refIn(opened.stdout, /button "Invite member"/);
  const exportRef = refIn(opened.stdout, /button "Export members \(CSV\)"/);
  const file = join(stateHome, 'annotated.png');
  const shot = await cli(session, 'screenshot', file, '--annotate');
  assert.is(shot.code, 0, shot.stderr);
  assert.match(
    shot.stdout,
    /annotated\.png: image\/png \d+x\d+, \d+ bytes\nrefs of st_\S+ drawn; not drawn \(gone, hidden or outside\): .*@/,
  );
  assert.match(shot.stdout, new RegExp(`not drawn.*${exportRef}\\b`), 'the button below the fold is named');
  assert.equal([...readFileSync(file).subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47]);
  const only = await cli(session, 'screenshot', file, '--refs', invite, '--json');
  assert.is(only.code, 0, only.stderr);
  const answer = JSON.parse(only.stdout) as { state_id: string; not_drawn: string[] };
  assert.equal(answer.not_drawn, []);
  assert.match(answer.state_id, /^st_/);
  const unknown = await cli(session, 'screenshot', file, '--refs', '@999');
  assert.is(unknown.code, 3);
  assert.match(unknown.stderr, /@999 is not a ref of state/);
});

s("pdf copies the print to FILE, or names the server's file; a bad paper is the server's invalid_params (exit 3)", async () => {
  const session = await newSession('cli-pdf');
  assert.is((await cli(session, 'open', fixtures.url('/invoice.html'))).code, 0);
  const file = join(stateHome, 'invoice.pdf');
  const saved = await cli(session, 'pdf', file, '--landscape', '--paper', 'a4', '--ranges', '1-2');
  assert.is(saved.code, 0, saved.stderr);
  assert.match(saved.stdout, /invoice\.pdf: PDF, 2 pages, \d+ bytes/);
  assert.is(readFileSync(file).subarray(0, 5).toString(), '%PDF-');
  const named = await cli(session, 'pdf', '--json');
  assert.is(named.code, 0, named.stderr);
  const answer = JSON.parse(named.stdout) as { file: string; server_path: string; size: number; pages: number };
  assert.is(answer.file, answer.server_path);
  assert.is(statSync(answer.file).size, answer.size);
  assert.ok(answer.pages >= 3 && answer.file.includes(`/${session}/`), named.stdout);
  const bad = await cli(session, 'pdf', '--paper', 'a9');
  assert.is(bad.code, 3);
  assert.match(bad.stderr, /invalid_params|paper/);
});

s('--trace records the session, trace export copies the zip to FILE; trace show serves it with no browser launched', async () => {
  const session = await newSession('cli-trace');
  const opened = await cli(session, 'open', fixtures.url('/counter.html'), '--trace');
  assert.is(opened.code, 0, opened.stderr);
  const clicked = await cli(session, 'click', refIn(opened.stdout, /button "Increment/));
  assert.is(clicked.code, 0, clicked.stderr);
  const stopped = await cli(session, 'trace', 'stop');
  assert.match(stopped.stdout, /recording stopped: 2 steps/);
  const file = join(stateHome, 'run.zip');
  const exported = await cli(session, 'trace', 'export', file);
  assert.is(exported.code, 0, exported.stderr);
  assert.match(exported.stdout, /run\.zip: trace, 2 steps, \d+ screenshots, \d+ bytes; pagewire trace show /);
  const bytes = readFileSync(file);
  assert.is(bytes.subarray(0, 4).toString('hex'), '504b0304', 'a zip');
  assert.is((await cli(session, 'trace', 'rewind')).code, 2);

  // The viewer: a process of its own, with no browser and no background server.
  const { viewer, url } = await traceViewer(file);
  assert.is(url.searchParams.get('trace'), 'run.zip');
  const token = url.searchParams.get('token')!;
  const page = await fetch(url);
  assert.is(page.status, 200);
  assert.match(await page.text(), /pagewire inspector/);
  const served = await fetch(`${url.origin}/traces/run.zip?token=${token}`);
  assert.is(served.status, 200);
  assert.ok(Buffer.from(await served.arrayBuffer()).equals(bytes), 'the file as saved');
  const other = await fetch(`${url.origin}/traces/other.zip?token=${token}`);
  assert.is(other.status, 404);
  await other.body?.cancel();
  const noToken = await fetch(`${url.origin}/traces/run.zip`);
  assert.is(noToken.status, 401);
  await noToken.body?.cancel();
  assert.equal(descendants(viewer.pid!).map((p) => p.comm), [], 'no browser (no process at all) under the viewer');
  viewer.kill('SIGTERM');
  assert.is(await viewer.exit, 0);
  const missing = await runCli(['trace', 'show', join(stateHome, 'nothing.zip')], {});
  assert.is(missing.code, 1);
  assert.match(missing.stderr, /cannot read/);
});

s('the command table: no command or only flags is serve; mcp prints its help on stderr; help lists every command', async () => {
  const help = await runCli(['help'], {});
  assert.is(help.code, 0);
  for (
    const name of [
      'serve',
      'mcp',
      'open',
      'observe',
      'find',
      'click',
      'type',
      'fill',
      'select',
      'check',
      'press',
      'scroll',
      'screenshot',
      'pdf',
      'tabs',
      'dialog',
      'events',
    ]
  ) {
    assert.match(help.stdout, new RegExp(`^  pagewire ${name}\\b`, 'm'));
  }
  const flags = await runCli(['--help'], {});
  assert.is(flags.code, 0);
  assert.match(flags.stdout, /^Usage: pagewire \[serve\|mcp\] \[flags\]/);
  assert.match(flags.stdout, /--allow-origin/);
  assert.match(flags.stdout, /Commands \(no command: serve\):/);
  const badFlag = await runCli(['serve', '--port', 'x'], {});
  assert.is(badFlag.code, 2, 'serve reads the server flags');
  assert.match(badFlag.stderr, /--port/);
  const served = await startServerProcess(['serve', '--port', '0', '--token', 'cli-serve-token']);
  assert.match(served.line, /^pagewire listening on ws:\/\/127\.0\.0\.1:\d+\/\?token=cli-serve-token$/);
  served.kill('SIGTERM');
  assert.is(await served.exit, 0);
  // Under mcp, stdout is the protocol channel: its help goes to stderr.
  const mcpHelp = await runCli(['mcp', '--help'], {});
  assert.is(mcpHelp.code, 0);
  assert.is(mcpHelp.stdout, '');
  assert.match(mcpHelp.stderr, /^Usage: pagewire \[serve\|mcp\] \[flags\]/);
});

s.run();

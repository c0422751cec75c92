// `npm run bench:act [-- --runs N]`: how long an `act` round trip (input + fresh observation)
// takes on a few representative fixture pages, for a click and for a fill, how big the fresh
// observation's tree is, and the raw CDP floor on the same page to compare against: one click
// (Input.dispatchMouseEvent mouseMoved + mousePressed + mouseReleased at the element's centre)
// and one Accessibility.getFullAXTree, both sent through the server's own browser session. That
// session is measured as the acts left it: with unbuffered pointer input on (src/actions/input.ts),
// so the floor's mouseMoved is not held until the next animation frame either.
// Each act uses the state id and refs of the previous act's `fresh_state`, as an agent would.
// Measuring begins once the freshly launched browser has gone idle (its start-up is not timed).
// Everything runs in-process on loopback: the fixture server, a pagewire server (which launches
// its own browser) and one client. Prints a table and writes every sample to
// bench/results/act-<date>.json.
// Exit code: 0 once the servers started (failures are reported in the table and the JSON),
// 1 only when the fixture server, the pagewire server or the first session could not start.
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import process from 'node:process';
import { parseConfig } from '../src/config.ts';
import type { Tab } from '../src/browser/tab.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { TestClient } from '../test/helpers/client.ts';
import { type FixtureServer, startFixtureServer } from '../test/helpers/fixture-server.ts';
import { ms, num, parseRuns, round, type Stats, stats, table, timed, utf8, waitForLoad, WARMUPS } from './common.ts';
import type { ActResult as ActReply, Observation } from '../test/helpers/wire.ts';

/** The browser counts as idle below this many busy cores (all its processes together)… */
const IDLE_CORES = 0.25;
/** …measured over windows this long, two in a row… */
const IDLE_WINDOW_MS = 250;
/** …waiting at most this long for it. */
const IDLE_WAIT_CAP_MS = 15_000;

type ActionName = 'click' | 'fill';

/** An element of the observation, found by its role and accessible name (exact). */
interface ElementSpec {
  role: string;
  name: string;
}

interface PageSpec {
  path: string;
  /** Clicked by the click act and by the raw CDP click: something harmless to click repeatedly. */
  click: ElementSpec;
  /** A text field filled by the fill act. */
  fill: ElementSpec;
}

const PAGES: PageSpec[] = [
  // Small page: the counter button only updates a status line.
  { path: 'act.html', click: { role: 'button', name: 'Count' }, fill: { role: 'textbox', name: 'Name' } },
  // 20-field form: "Sign up" would submit (navigate), so toggle a checkbox instead.
  { path: 'form.html', click: { role: 'checkbox', name: 'Email me' }, fill: { role: 'textbox', name: 'Full name' } },
  // 300-row table: the "Edit" buttons are type=button with no handler, so clicking does nothing.
  { path: 'large-table.html', click: { role: 'button', name: 'Edit row 1' }, fill: { role: 'textbox', name: 'Note for row 1' } },
];

interface ActIssue {
  /** 0-based index over warm-ups then runs. */
  index: number;
  warmup: boolean;
  status: string;
  execution: string;
  observation: string;
  error_type?: string;
  error_text?: string;
  /** Frames the fresh observation listed as unavailable, with their reasons. */
  unavailable_frames?: string[];
}

interface ActMeasure {
  action: ActionName;
  target: ElementSpec;
  status: 'ok' | 'error';
  error?: string;
  stats?: Stats;
  /** Acts made, warm-ups included. */
  acts: number;
  /** Acts whose `observation` was not "captured" (warm-ups included). */
  not_captured: number;
  /** Acts whose `status` was not "completed" (warm-ups included). */
  not_completed: number;
  /** Acts whose fresh observation was captured but listed a frame as unavailable (warm-ups included). */
  partial: number;
  /** Observations made outside the timings because an act left no usable fresh state. */
  reobserves: number;
  issues: ActIssue[];
  /** UTF-8 bytes of the last fresh observation's `tree`. */
  fresh_tree_bytes?: number;
  /** UTF-8 bytes of the last act result as JSON. */
  result_bytes?: number;
  fresh_elements?: number;
}

interface FloorMeasure {
  status: 'ok' | 'error';
  error?: string;
  /** Where the raw click lands (CSS px, the centre of the element's first content quad). */
  point?: { x: number; y: number };
  click?: Stats;
  full_tree?: Stats;
  /** Sum of the click and full-tree medians. */
  click_plus_tree_median_ms?: number;
  /** UTF-8 bytes of the last getFullAXTree reply as JSON. */
  full_tree_bytes?: number;
  ax_nodes?: number;
}

interface PageResult {
  page: string;
  error?: string;
  click?: ActMeasure;
  fill?: ActMeasure;
  floor?: FloorMeasure;
}

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

interface IdleWait {
  waited_ms: number;
  /** false: the cap was reached (or the browser could not say), and measuring began anyway. */
  idle: boolean;
  /** Busy cores in the last window before measuring began. */
  last_busy_cores?: number;
}

/**
 * Waits for the freshly launched browser to go idle. For its first seconds it starts its own UI
 * pages (the "top-chrome" WebUI renderers), which kept both cores of a 2-CPU machine busy for
 * ~3 s: the first page measured (act.html) was timed against that, not against the act.
 * CPU time comes from SystemInfo.getProcessInfo (every process of the browser).
 */
async function waitForIdleBrowser(server: RunningServer): Promise<IdleWait> {
  const root = server.host.current?.connection.root;
  const start = performance.now();
  if (!root) return { waited_ms: 0, idle: false };
  const cpuSeconds = async () => {
    const { processInfo } = (await root.sendRaw('SystemInfo.getProcessInfo', {})) as { processInfo: Array<{ cpuTime: number }> };
    return processInfo.reduce((sum, p) => sum + p.cpuTime, 0);
  };
  try {
    let before = await cpuSeconds();
    let at = performance.now();
    let quietWindows = 0;
    let busy = Number.NaN;
    while (performance.now() - start < IDLE_WAIT_CAP_MS) {
      await new Promise((resolve) => setTimeout(resolve, IDLE_WINDOW_MS));
      const now = await cpuSeconds();
      const nowAt = performance.now();
      busy = ((now - before) * 1000) / (nowAt - at);
      before = now;
      at = nowAt;
      quietWindows = busy < IDLE_CORES ? quietWindows + 1 : 0;
      if (quietWindows >= 2) return { waited_ms: round(performance.now() - start), idle: true, last_busy_cores: round(busy) };
    }
    return { waited_ms: round(performance.now() - start), idle: false, last_busy_cores: round(busy) };
  } catch {
    return { waited_ms: round(performance.now() - start), idle: false };
  }
}

function refOf(observation: Observation, spec: ElementSpec): string {
  const found = observation.elements.find((e) => e.role === spec.role && e.name.trim() === spec.name);
  if (!found) {
    throw new Error(`no ${spec.role} "${spec.name}" among the ${observation.elements.length} elements of ${observation.state_id}`);
  }
  return found.ref;
}

/** The page as the bench currently knows it: the observation the next act builds on. */
interface PageContext {
  client: TestClient;
  sessionId: string;
  targetId: string;
  current: Observation;
}

const REOBSERVE_ATTEMPTS = 3;

const unavailableFrames = (observation: Observation) =>
  (observation.frames ?? []).filter((f) => f.status !== 'observed').map((f) => `${f.frame_id}: ${f.reason ?? f.status}`);

const hasAll = (observation: Observation, specs: ElementSpec[]) =>
  specs.every((spec) => observation.elements.some((e) => e.role === spec.role && e.name.trim() === spec.name));

/**
 * A fresh observation outside the timings, when an act left none to build on (no capture, or a
 * capture whose frame was unavailable and so lacks the refs): tried a few times, until it holds
 * every element the bench needs. Returns how many observe calls it made.
 */
async function reobserve(ctx: PageContext, specs: ElementSpec[]): Promise<number> {
  let why = '';
  for (let attempt = 1; attempt <= REOBSERVE_ATTEMPTS; attempt++) {
    const observation = await ctx.client.call('observe', { session_id: ctx.sessionId, target_id: ctx.targetId });
    ctx.current = observation;
    if (hasAll(observation, specs)) return attempt;
    const frames = unavailableFrames(observation);
    why = frames.length > 0 ? `frames unavailable (${frames.join('; ')})` : `${observation.elements.length} elements, not the ones needed`;
  }
  throw new Error(`${REOBSERVE_ATTEMPTS} observe calls in a row lacked ${specs.map((s) => `${s.role} "${s.name}"`).join(', ')}: ${why}`);
}

async function measureAct(ctx: PageContext, action: ActionName, target: ElementSpec, runs: number): Promise<ActMeasure> {
  const measure: ActMeasure = {
    action,
    target,
    status: 'ok',
    acts: 0,
    not_captured: 0,
    not_completed: 0,
    partial: 0,
    reobserves: 0,
    issues: [],
  };
  const samples: number[] = [];
  let last: ActReply | undefined;
  /** The last fresh observation with every frame observed: its tree is what the size column shows. */
  let lastComplete: Observation | undefined;
  try {
    for (let i = 0; i < WARMUPS + runs; i++) {
      const params: Record<string, unknown> = {
        session_id: ctx.sessionId,
        target_id: ctx.targetId,
        state_id: ctx.current.state_id,
        action,
        ref: refOf(ctx.current, target),
      };
      if (action === 'fill') params.text = `bench ${i}`;
      const { ms, value } = await timed(() => ctx.client.call('act', params));
      measure.acts++;
      const captured = value.observation === 'captured' && value.fresh_state !== undefined;
      if (!captured) measure.not_captured++;
      if (value.status !== 'completed') measure.not_completed++;
      const unavailable = value.fresh_state ? unavailableFrames(value.fresh_state) : [];
      if (unavailable.length > 0) measure.partial++;
      else if (captured) lastComplete = value.fresh_state;
      if (!captured || value.status !== 'completed' || unavailable.length > 0) {
        measure.issues.push({
          index: i,
          warmup: i < WARMUPS,
          status: value.status,
          execution: value.execution,
          observation: value.observation,
          ...(value.error_type !== undefined ? { error_type: value.error_type } : {}),
          ...(value.error_text !== undefined ? { error_text: value.error_text } : {}),
          ...(unavailable.length > 0 ? { unavailable_frames: unavailable } : {}),
        });
      }
      if (i >= WARMUPS) samples.push(ms);
      last = value;
      if (captured && hasAll(value.fresh_state!, [target])) ctx.current = value.fresh_state!;
      else measure.reobserves += await reobserve(ctx, [target]);
    }
  } catch (error) {
    measure.status = 'error';
    measure.error = describe(error);
    // Whatever state the failed act left, the next measurement starts from a fresh observation.
    await reobserve(ctx, [target]).catch(() => {});
  }
  if (samples.length > 0) measure.stats = stats(samples);
  if (lastComplete) {
    measure.fresh_tree_bytes = utf8(lastComplete.tree ?? '');
    measure.fresh_elements = lastComplete.elements?.length ?? 0;
  }
  if (last) measure.result_bytes = utf8(JSON.stringify(last));
  return measure;
}

async function repeat<T>(runs: number, call: () => Promise<T>): Promise<{ stats: Stats; last: T }> {
  for (let i = 0; i < WARMUPS; i++) await call();
  const samples: number[] = [];
  let last: T | undefined;
  for (let i = 0; i < runs; i++) {
    const { ms, value } = await timed(call);
    samples.push(ms);
    last = value;
  }
  return { stats: stats(samples), last: last as T };
}

/** Where a raw click on the element lands: the centre of its first content quad (CSS px). */
async function clickPoint(server: RunningServer, ctx: PageContext, tab: Tab, target: ElementSpec): Promise<{ x: number; y: number }> {
  const session = server.registry.all().find((s) => s.id === ctx.sessionId);
  if (!session) throw new Error(`no server session ${ctx.sessionId}`);
  const state = session.states.current(ctx.targetId);
  if (!state) throw new Error(`the tab ${ctx.targetId} has no current state`);
  const ref = refOf(ctx.current, target);
  const refTarget = state.targets.get(ref);
  if (!refTarget) throw new Error(`the current state ${state.stateId} has no target for ${ref}`);
  const { backendNodeId } = refTarget;
  await tab.session.send('DOM.scrollIntoViewIfNeeded', { backendNodeId });
  const { quads } = await tab.session.send('DOM.getContentQuads', { backendNodeId });
  const quad = quads[0];
  if (!quad || quad.length < 8) throw new Error(`${ref} has no content quad`);
  return { x: (quad[0]! + quad[2]! + quad[4]! + quad[6]!) / 4, y: (quad[1]! + quad[3]! + quad[5]! + quad[7]!) / 4 };
}

/**
 * The raw floor, through the server's own browser session for the tab. The clicked element comes
 * from the session's current state (the ref the last act observed → its backendNodeId); its
 * point is found once, outside the timings. The full tree is measured even when the click
 * point cannot be found.
 */
async function measureFloor(server: RunningServer, ctx: PageContext, target: ElementSpec, runs: number): Promise<FloorMeasure> {
  const tab = server.host.current?.tab(ctx.targetId);
  if (!tab) return { status: 'error', error: `no browser tab for ${ctx.targetId}` };
  const cdp = tab.session;
  const floor: FloorMeasure = { status: 'ok' };
  const errors: string[] = [];
  try {
    const { x, y } = await clickPoint(server, ctx, tab, target);
    floor.point = { x: round(x), y: round(y) };
    const click = async () => {
      await cdp.send('Input.dispatchMouseEvent', { type: 'mouseMoved', x, y });
      await cdp.send('Input.dispatchMouseEvent', { type: 'mousePressed', x, y, button: 'left', buttons: 1, clickCount: 1 });
      await cdp.send('Input.dispatchMouseEvent', { type: 'mouseReleased', x, y, button: 'left', buttons: 0, clickCount: 1 });
    };
    floor.click = (await repeat(runs, click)).stats;
  } catch (error) {
    errors.push(`click: ${describe(error)}`);
  }
  try {
    const tree = await repeat(runs, () => cdp.send('Accessibility.getFullAXTree', {}));
    floor.full_tree = tree.stats;
    floor.full_tree_bytes = utf8(JSON.stringify(tree.last));
    floor.ax_nodes = tree.last.nodes.length;
  } catch (error) {
    errors.push(`full tree: ${describe(error)}`);
  }
  if (floor.click && floor.full_tree) floor.click_plus_tree_median_ms = round(floor.click.median_ms + floor.full_tree.median_ms);
  if (errors.length > 0) {
    floor.status = 'error';
    floor.error = errors.join('; ');
  }
  return floor;
}

function report(results: PageResult[], runs: number): void {
  console.log(
    `\nact round trip (${WARMUPS} warm-ups, median of ${runs}; client over the WebSocket, each act on the previous act's fresh_state)` +
      `\nfloor: raw CDP through the server's browser session (unbuffered input on, as act leaves it), medians: click = mouseMoved+mousePressed+mouseReleased, tree = Accessibility.getFullAXTree {}`,
  );
  const rows: string[][] = [];
  for (const result of results) {
    const f = result.floor;
    const floorCells = f
      ? [f.click ? ms(f.click.median_ms) : 'ERROR', f.full_tree ? ms(f.full_tree.median_ms) : 'ERROR', ms(f.click_plus_tree_median_ms)]
      : ['-', '-', '-'];
    if (!result.click && !result.fill) {
      rows.push([result.page, '-', 'ERROR', '-', '-', '-', '-', '-', '-', ...floorCells]);
      continue;
    }
    for (const m of [result.click, result.fill]) {
      if (!m) continue;
      const counts = [`${m.not_captured}/${m.acts}`, `${m.not_completed}/${m.acts}`, `${m.partial}/${m.acts}`];
      rows.push(
        m.stats
          ? [
            result.page,
            m.action,
            ms(m.stats.median_ms),
            ms(m.stats.p90_ms),
            ms(m.stats.min_ms),
            num(m.fresh_tree_bytes),
            ...counts,
            ...floorCells,
          ]
          : [result.page, m.action, 'ERROR', '-', '-', '-', ...counts, ...floorCells],
      );
    }
  }
  console.log(
    table(
      [
        'page',
        'action',
        'median ms',
        'p90 ms',
        'min ms',
        'fresh tree B',
        'not captured',
        'not completed',
        'frame unavail',
        'floor click ms',
        'floor tree ms',
        'click + full tree ms',
      ],
      rows,
      2,
    ),
  );
  console.log(
    '(not captured / not completed / frame unavail: acts, warm-ups included, whose observation was not "captured" / whose status was not "completed" /' +
      ' whose fresh observation listed a frame as unavailable; fresh tree B: the last fresh observation with every frame observed)',
  );
  for (const result of results) {
    if (result.error) console.log(`  ${result.page}: ${result.error}`);
    for (const m of [result.click, result.fill]) {
      if (!m) continue;
      if (m.error) console.log(`  ${result.page} ${m.action}: ${m.error}`);
      if (m.reobserves > 0) console.log(`  ${result.page} ${m.action}: ${m.reobserves} untimed observe call(s) to get usable refs back`);
      for (const issue of m.issues) {
        console.log(
          `  ${result.page} ${m.action} #${issue.index}${
            issue.warmup ? ' (warm-up)' : ''
          }: status ${issue.status}, observation ${issue.observation}` +
            (issue.error_type ? `, ${issue.error_type}` : '') +
            (issue.error_text ? `: ${issue.error_text}` : '') +
            (issue.unavailable_frames ? `; frame unavailable: ${issue.unavailable_frames.join('; ')}` : ''),
        );
      }
    }
    if (result.floor?.status === 'error') console.log(`  ${result.page} floor: ${result.floor.error}`);
  }
}

interface Started {
  fixtures: FixtureServer;
  server: RunningServer;
  client: TestClient;
  sessionId: string;
}

async function main(): Promise<number> {
  const runs = parseRuns(process.argv.slice(2));
  const results: PageResult[] = [];
  let fixtures: FixtureServer | undefined;
  let server: RunningServer | undefined;
  let client: TestClient | undefined;
  let browserProduct = 'unknown';
  // The machine's load, before and after: timings from a busy machine are not comparable.
  const load = () => loadavg().map((n) => Math.round(n * 100) / 100);
  const loadBefore = load();
  try {
    let started: Started;
    try {
      fixtures = await startFixtureServer();
      const token = `bench-${crypto.randomUUID()}`;
      const env: Record<string, string | undefined> = { PAGEWIRE_BROWSER: process.env.PAGEWIRE_BROWSER };
      const config = parseConfig(['--host', '127.0.0.1', '--port', '0', '--token', token], env);
      server = await startServer(config, { runtime: `node ${process.version}` });
      // Unchecked: the schema check would add its own time to every measured call.
      client = await TestClient.connect(`${server.url}?token=${encodeURIComponent(token)}`, { checkWire: false });
      const { session_id } = await client.call('session.create', { name: 'bench' });
      started = { fixtures, server, client, sessionId: session_id };
    } catch (error) {
      console.error('bench could not start the servers:', error);
      return 1;
    }
    const idleWait = await waitForIdleBrowser(started.server);

    for (const spec of PAGES) {
      const result: PageResult = { page: spec.path };
      results.push(result);
      let targetId: string | undefined;
      try {
        const url = started.fixtures.url(`/${spec.path}`);
        const opened = await started.client.call('tabs.new', { session_id: started.sessionId, url });
        targetId = opened.target_id;
        if (opened.error_text) throw new Error(`tabs.new ${spec.path}: ${opened.error_text}`);
        const browser = started.server.host.current;
        const tab = browser?.tab(targetId);
        if (!browser || !tab) throw new Error(`no browser tab for ${targetId}`);
        browserProduct = browser.version.product;
        await waitForLoad(tab);

        const ctx: PageContext = { client: started.client, sessionId: started.sessionId, targetId, current: undefined as never };
        const observed = await reobserve(ctx, [spec.click, spec.fill]).then(
          () => true,
          (error: unknown) => {
            result.error = `first observe: ${describe(error)}`;
            return false;
          },
        );
        if (observed) {
          result.click = await measureAct(ctx, 'click', spec.click, runs);
          result.fill = await measureAct(ctx, 'fill', spec.fill, runs);
        }
        result.floor = await measureFloor(started.server, ctx, spec.click, runs);
      } catch (error) {
        result.error = describe(error);
      } finally {
        if (targetId !== undefined) {
          await started.client.call('tabs.close', { session_id: started.sessionId, target_id: targetId }).catch(() => {});
        }
      }
    }

    const loadAfter = load();
    console.log(`pagewire act bench — ${browserProduct}, node ${process.version}, runs=${runs}`);
    console.log(`${availableParallelism()} CPUs; load average (1/5/15 min) before ${loadBefore.join(' ')}, after ${loadAfter.join(' ')}`);
    console.log(
      idleWait.idle
        ? `the browser went idle ${Math.round(idleWait.waited_ms)} ms after launch; measuring began then`
        : `the browser was not idle after ${Math.round(idleWait.waited_ms)} ms (last ${
          idleWait.last_busy_cores ?? '?'
        } busy cores); measured anyway`,
    );
    report(results, runs);

    try {
      const date = new Date().toISOString();
      const dir = new URL('./results/', import.meta.url);
      mkdirSync(dir, { recursive: true });
      const file = new URL(`act-${date.replace(/[:.]/g, '-')}.json`, dir);
      const json = {
        date,
        runs,
        warmups: WARMUPS,
        runtime: `node ${process.version}`,
        browser: browserProduct,
        cpus: availableParallelism(),
        loadavg_before: loadBefore,
        loadavg_after: loadAfter,
        browser_idle_wait: idleWait,
        pages: results,
      };
      writeFileSync(file, JSON.stringify(json, null, 2) + '\n');
      console.log(`\nwrote ${file.pathname}`);
    } catch (error) {
      console.error(`could not write the results: ${describe(error)}`);
    }
    return 0;
  } finally {
    client?.close();
    await server?.close().catch((error: unknown) => console.error(`closing the pagewire server failed: ${describe(error)}`));
    await fixtures?.close().catch((error: unknown) => console.error(`closing the fixture server failed: ${describe(error)}`));
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error('bench failed:', error);
    process.exit(1);
  },
);

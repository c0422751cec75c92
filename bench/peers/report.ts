// bench/RESULTS.md and the summary block of bench/README.md, written from one run's data (bench/RESULTS.json).
import type { ScaleReport } from '../scale.ts';
import { readFileSync, writeFileSync } from 'node:fs';
import type { Contender } from './contender.ts';
import type { MemoryReport } from './procs.ts';
import type { PageResult, SeriesName, SeriesResult } from './run.ts';
import { QUIET_CAP_MS, QUIET_MAX_BUSY_CORES, QUIET_WINDOW_MS } from './quiet.ts';

export interface ContenderReport {
  id: string;
  label: string;
  version: string;
  package_version?: string | undefined;
  command: string;
  calls: Contender['calls'];
  status: 'ok' | 'failed';
  error?: string;
  /** Start-up until ready (pagewire: server, session; MCP: initialize, first tools). */
  start_ms?: number;
  memory?: MemoryReport;
  /** Right after start-up, before the first page: what the run itself added is the difference. */
  memory_at_start?: MemoryReport;
  leftovers?: number;
}

export interface BenchReport {
  date: string;
  runs: number;
  act_runs: number;
  warmups: number;
  seconds: number;
  machine: {
    cpu: string;
    cores: number;
    memory_gib: number;
    os: string;
    node: string;
  };
  load_average: { before: number[]; after: number[] };
  browser: { path: string; version: string };
  contenders: ContenderReport[];
  pages: PageResult[];
  /** Many sessions on one pagewire server (bench/scale.ts), after the pages; absent with --no-scale. */
  scale?: ScaleReport;
  /** PSS of a Node process that only waits (the same Node binary), taken right after the contenders' memory. */
  node_floor_mib?: number;
}

export const README_START = '<!-- bench:peers:start -->';
export const README_END = '<!-- bench:peers:end -->';

const PW = 'pagewire';
/** pagewire's own tools over MCP: the same server, so its medians less PW's are the MCP path's cost. */
const PW_MCP = 'pagewire-mcp';

/** The same calls replayed by the same SDK client against a bare SDK server: MCP with nothing of pagewire in it. */
const MCP_FLOOR = 'mcp-floor';
const MCP_SERIES: SeriesName[] = ['observe_changed', 'click', 'fill', 'navigate'];

/**
 * What the MCP path adds to pagewire's WebSocket medians, per series, on one page; with `less`,
 * less that contender's median too (the MCP floor: what is left is pagewire's own).
 */
export function mcpOverhead(page: PageResult, less?: string): string {
  return MCP_SERIES
    .map((name) => {
      const over = median(page, PW_MCP, name);
      const ws = median(page, PW, name);
      const floor = less === undefined ? 0 : median(page, less, name);
      if (over === undefined || ws === undefined || floor === undefined) return '—';
      const added = over - ws - floor;
      return `${added >= 0 ? '+' : ''}${added.toFixed(1)}`;
    })
    .join(' / ');
}
const PLAYWRIGHT = 'playwright-mcp';
const CDM = 'chrome-devtools-mcp';
const FLOOR = 'cdp-floor';
/** The reference points, not peers: no "pagewire ÷ this" for them. */
const READ_FLOOR = 'cdp-read-floor';
const LOAD_FLOOR = 'cdp-load-floor';
const AGENT_BROWSER = 'agent-browser';
const isFloor = (id: string): boolean => id === FLOOR || id === MCP_FLOOR || id === READ_FLOOR || id === LOAD_FLOOR;

// --- formatting ---------------------------------------------------------------------------------

const ms = (
  value: number | undefined,
): string => (value === undefined || Number.isNaN(value) ? '—' : value < 10 ? value.toFixed(1) : String(Math.round(value)));

function kb(bytes: number | undefined): string {
  if (bytes === undefined) return '—';
  return bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`;
}

function ratio(a: number | undefined, b: number | undefined): string {
  if (a === undefined || b === undefined || !(b > 0)) return '—';
  const r = a / b;
  return r >= 10 ? `${Math.round(r)}×` : `${r.toFixed(2)}×`;
}

const esc = (text: string): string => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** A Markdown table; `numeric` right-aligns every column but the first. */
function table(head: string[], rows: string[][], numeric = true): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [
    line(head),
    line(head.map((_, i) => (i > 0 && numeric ? '---:' : '---'))),
    ...rows.map(line),
  ].join('\n');
}

// --- lookups ------------------------------------------------------------------------------------

function series(
  page: PageResult | undefined,
  id: string,
  name: SeriesName,
): SeriesResult | undefined {
  return page?.contenders[id]?.series[name];
}

function median(
  page: PageResult | undefined,
  id: string,
  name: SeriesName,
): number | undefined {
  return series(page, id, name)?.stats?.median_ms;
}

/** "median / p90" with a mark when the answer carried no observation, or why nothing was measured. */
function cell(page: PageResult, id: string, name: SeriesName): string {
  const c = page.contenders[id];
  if (!c) return '—';
  if (c.open_error) return 'could not open';
  const s = c.series[name];
  if (!s) return '—';
  if (s.status === 'not_applicable') return 'n/a';
  if (!s.stats) return s.derived_from ? 'failed' : `failed (${s.errors})`;
  if (s.derived_from) {
    return `≈ ${ms(s.stats.median_ms)} / ${ms(s.stats.p90_ms)} (sum)`;
  }
  const errors = s.errors ? ` (${s.errors} failed)` : '';
  return `${ms(s.stats.median_ms)} / ${ms(s.stats.p90_ms)}${errors}`;
}

function carries(page: PageResult, id: string, name: SeriesName): string {
  const s = series(page, id, name);
  if (!s || s.status === 'not_applicable' || !s.stats) return '—';
  return s.observation === true ? 'yes' : s.observation === 'mixed' ? 'mixed' : 'no';
}

// --- targets ------------------------------------------------------------------------------------

export interface Verdict {
  target: string;
  where: string;
  pagewire: string;
  limit: string;
  met: boolean | undefined;
  /** The limit lies below Chromium's own floor for it, measured in the same run: which floor, in words. */
  belowFloor?: string;
}

/** pagewire's median against `factor` × a peer's (`observed`: pagewire's answer had to carry an observation). */
function timeVerdict(
  target: string,
  where: string,
  mine: number | undefined,
  theirs: number | undefined,
  factor: number,
  observed?: boolean,
): Verdict {
  const note = observed === false ? ' (no observation!)' : '';
  return {
    target,
    where,
    pagewire: mine === undefined ? 'not measured' : `${ms(mine)} ms${note}`,
    limit: theirs === undefined ? 'not measured' : `${ms(theirs * factor)} ms (${factor} × ${ms(theirs)})`,
    met: mine === undefined || theirs === undefined ? undefined : observed !== false && mine <= factor * theirs,
  };
}

export function verdicts(report: BenchReport): Verdict[] {
  const out: Verdict[] = [];
  const large = report.pages.find((p) => p.id === 'large-table');
  // 1. observe ≤ 0.5 × Playwright MCP's snapshot, large page (after a change, and unchanged).
  for (
    const [name, what] of [
      ['observe_changed', 'after a change'],
      ['observe_unchanged', 'unchanged page'],
    ] as const
  ) {
    out.push(
      timeVerdict(
        'observe ≤ 0.5× Playwright MCP snapshot',
        `large-table, ${what} (median)`,
        median(large, PW, name),
        median(large, PLAYWRIGHT, name),
        0.5,
      ),
    );
  }
  // 2. model-facing size ≤ 0.5 × chrome-devtools-mcp's snapshot (per interactive element where truncated).
  for (const page of report.pages) {
    const mine = page.contenders[PW]?.observation;
    const theirs = page.contenders[CDM]?.observation;
    if (!mine || !theirs) {
      out.push({
        target: 'size ≤ 0.5× chrome-devtools-mcp snapshot',
        where: page.id,
        pagewire: mine ? kb(mine.text_bytes) : 'not measured',
        limit: theirs ? kb(theirs.text_bytes / 2) : 'not measured',
        met: undefined,
      });
      continue;
    }
    if (mine.truncated) {
      const a = mine.bytes_per_interactive;
      const b = theirs.bytes_per_interactive;
      out.push({
        target: 'size ≤ 0.5× chrome-devtools-mcp snapshot',
        where: `${page.id} (pagewire truncates: per interactive element)`,
        pagewire: a === undefined ? '—' : `${a} B/element (${mine.interactive} elements)`,
        limit: b === undefined ? '—' : `${(b / 2).toFixed(1)} B/element (0.5 × ${b}, ${theirs.interactive} elements)`,
        met: a === undefined || b === undefined ? undefined : a <= 0.5 * b,
      });
    } else {
      out.push({
        target: 'size ≤ 0.5× chrome-devtools-mcp snapshot',
        where: page.id,
        pagewire: kb(mine.text_bytes),
        limit: `${kb(Math.round(theirs.text_bytes / 2))} (0.5 × ${kb(theirs.text_bytes)})`,
        met: mine.text_bytes <= 0.5 * theirs.text_bytes,
      });
    }
  }
  // 3. observe after a change on the form ≤ 0.7 × the faster of Playwright MCP and chrome-devtools-mcp
  // (issue 3).
  const form = report.pages.find((p) => p.id === 'form');
  const peers = [
    median(form, PLAYWRIGHT, 'observe_changed'),
    median(form, CDM, 'observe_changed'),
  ].filter((v): v is number => v !== undefined);
  out.push(
    timeVerdict(
      'observe ≤ 0.7× the faster peer snapshot',
      'form, after a change (median)',
      median(form, PW, 'observe_changed'),
      peers.length > 0 ? Math.min(...peers) : undefined,
      0.7,
    ),
  );
  // 4. fill with a fresh observation ≤ 0.5 × Playwright MCP's type (issue 4), on every page with a field.
  for (const page of report.pages) {
    const mine = median(page, PW, 'fill');
    const theirs = median(page, PLAYWRIGHT, 'fill');
    if (mine === undefined && theirs === undefined) continue; // no field on this page
    const observed = series(page, PW, 'fill')?.observation === true;
    out.push(
      timeVerdict(
        'fill with fresh observation ≤ 0.5× Playwright MCP type',
        `${page.id} (median)`,
        mine,
        theirs,
        0.5,
        observed,
      ),
    );
  }
  // 5. click with a fresh observation ≤ 0.25 × chrome-devtools-mcp's click alone.
  for (const page of report.pages) {
    const observed = series(page, PW, 'click')?.observation === true;
    out.push(
      timeVerdict(
        'click with fresh observation ≤ 0.25× chrome-devtools-mcp click',
        `${page.id} (median)`,
        median(page, PW, 'click'),
        median(page, CDM, 'click'),
        0.25,
        observed,
      ),
    );
  }
  // 6. navigate with a fresh observation ≤ 0.5 × Playwright MCP's navigate (issue 20), on the
  // large pages; beside it what the fewest accessibility calls that read the answer take.
  for (const page of report.pages.filter((p) => p.id === 'large-table' || p.id === 'long-index')) {
    const floor = median(page, READ_FLOOR, 'navigate');
    const theirs = median(page, PLAYWRIGHT, 'navigate');
    const below = floor !== undefined && theirs !== undefined
      ? `; raw CDP read floor ${ms(floor)} ms = ${(floor / theirs).toFixed(2)}×`
      : '';
    out.push(
      timeVerdict(
        'navigate with fresh observation ≤ 0.5× Playwright MCP navigate',
        `${page.id} (median${below})`,
        median(page, PW, 'navigate'),
        theirs,
        0.5,
        series(page, PW, 'navigate')?.observation === true,
      ),
    );
  }
  out.push(...roundThreeVerdicts(report));
  return out;
}

/**
 * Issue 34: a navigation with its fresh observation against Chromium's own floor (load, then one
 * whole read) and Playwright MCP's navigate on every page; each act with its observation against the
 * fastest peer's bare act; the server's memory against Playwright MCP's.
 */
function roundThreeVerdicts(report: BenchReport): Verdict[] {
  const out: Verdict[] = [];
  for (const page of report.pages) {
    const mine = median(page, PW, 'navigate');
    if (mine === undefined && median(page, PLAYWRIGHT, 'navigate') === undefined) continue;
    const observed = series(page, PW, 'navigate')?.observation === true;
    out.push(
      timeVerdict(
        'navigate with fresh observation ≤ 1.3× the load floor',
        `${page.id} (median)`,
        mine,
        median(page, LOAD_FLOOR, 'navigate'),
        1.3,
        observed,
      ),
    );
    // Chromium's floor for a first look: the faster of its two accessibility reads of the new page
    // (load, then the whole tree; DOMContentLoaded, then the probes and the prefix read of the answer's
    // refs). Playwright MCP builds its tree in the page instead, so its navigate may undercut both.
    const floors = [
      { words: 'load floor', ms: median(page, LOAD_FLOOR, 'navigate') },
      { words: 'read floor', ms: median(page, READ_FLOOR, 'navigate') },
    ].filter((floor): floor is { words: string; ms: number } => floor.ms !== undefined);
    const theirs = median(page, PLAYWRIGHT, 'navigate');
    const floorWords = floors.map((floor) => `raw CDP ${floor.words} ${ms(floor.ms)} ms`).join(', ');
    const againstPlaywright = timeVerdict(
      'navigate with fresh observation ≤ 0.8× Playwright MCP navigate',
      `${page.id} (median${floorWords ? `; ${floorWords}` : ''})`,
      mine,
      theirs,
      0.8,
      observed,
    );
    const floor = floors.length > 0 ? Math.min(...floors.map((f) => f.ms)) : undefined;
    out.push(
      theirs !== undefined && floor !== undefined && floor > 0.8 * theirs
        ? { ...againstPlaywright, belowFloor: "Chromium's fastest accessibility read of the page" }
        : againstPlaywright,
    );
  }
  const peers = [PLAYWRIGHT, CDM, AGENT_BROWSER];
  const fastest = (page: PageResult, name: SeriesName): { id: string; ms: number } | undefined =>
    peers
      .map((id) => ({ id, ms: median(page, id, name) }))
      .filter((p): p is { id: string; ms: number } => p.ms !== undefined)
      .sort((a, b) => a.ms - b.ms)[0];
  for (const page of report.pages) {
    for (const name of ['click', 'fill', 'type', 'select'] as const) {
      const best = fastest(page, name);
      const mine = median(page, PW, name);
      if (mine === undefined && best === undefined) continue;
      // The floor beside it: the raw CDP act (click: its three mouse events; the others: the input
      // and a read of the page after it), what no tool's act with a fresh observation undercuts.
      const floor = median(page, FLOOR, name);
      // …and the input with the one layout any read after it waits for: no act with a fresh
      // observation comes sooner, so a peer's bare act faster than it is a limit below the floor.
      const settled = series(page, FLOOR, name)?.settled_median_ms;
      const floorWords = floor === undefined
        ? ''
        : `; raw CDP floor: ${name === 'click' ? 'the input alone' : 'with its read'} ${ms(floor)} ms` +
          (settled === undefined ? '' : `, the input and the layout after it ${ms(settled)} ms`);
      const verdict = timeVerdict(
        `${name} with fresh observation ≤ 1× the fastest peer's bare ${name}`,
        `${page.id} (median${best ? `; fastest: ${best.id}` : ''}${floorWords})`,
        mine,
        best?.ms,
        1,
        series(page, PW, name)?.observation === true,
      );
      out.push(
        best !== undefined && settled !== undefined && best.ms < settled
          ? { ...verdict, belowFloor: "Chromium's own input and layout for that act" }
          : verdict,
      );
    }
  }
  const serverMib = (id: string, when: 'memory' | 'memory_at_start') => report.contenders.find((c) => c.id === id)?.[when]?.server_mib;
  const mine = serverMib(PW, 'memory');
  const theirs = serverMib(PLAYWRIGHT, 'memory');
  const scale = report.scale;
  if (scale) {
    const top = scale.steps.at(-1)!;
    const best = scale.steps.reduce((a, b) => (b.clicks_per_s > a.clicks_per_s ? b : a));
    const floorBest = scale.steps.reduce((a, b) => ((b.floor?.clicks_per_s ?? 0) > (a.floor?.clicks_per_s ?? 0) ? b : a));
    const floorWords = (what: string) => (top.floor ? `; raw CDP floor: ${what}` : '');
    const throughput: Verdict = {
      target: `${top.sessions} sessions: throughput ≥ 0.9× the best session count's`,
      where: `one server, counter page, ${scale.seconds} s a step` +
        floorWords(`${top.floor?.clicks_per_s} clicks/s (${scale.floor_throughput_ratio}× its best, ${floorBest.sessions} sessions)`),
      pagewire: `${top.clicks_per_s} clicks/s (${scale.throughput_ratio}×)`,
      limit: `${(best.clicks_per_s * 0.9).toFixed(1)} clicks/s (0.9 × ${best.clicks_per_s}, ${best.sessions} sessions)`,
      met: scale.throughput_ratio >= 0.9,
    };
    out.push(
      scale.floor_throughput_ratio !== undefined && scale.floor_throughput_ratio < 0.9
        ? { ...throughput, belowFloor: `what Chromium gives the raw CDP floor (${scale.floor_throughput_ratio}× its best)` }
        : throughput,
    );
    const spread: Verdict = {
      target: `${top.sessions} sessions: p95 ≤ 3× p50`,
      where: 'click with a fresh observation' +
        floorWords(`p95 ${top.floor?.p95_ms} ms, p50 ${top.floor?.p50_ms} ms (${scale.floor_spread}×)`),
      pagewire: `p95 ${top.p95_ms} ms, p50 ${top.p50_ms} ms (${scale.spread}×)`,
      limit: `${top.p50_ms * 3} ms`,
      met: scale.spread <= 3,
    };
    out.push(
      scale.floor_spread !== undefined && scale.floor_spread > 3
        ? { ...spread, belowFloor: `the raw CDP floor's own spread (${scale.floor_spread}×)` }
        : spread,
    );
  }
  const mineAtStart = serverMib(PW, 'memory_at_start');
  const theirsAtStart = serverMib(PLAYWRIGHT, 'memory_at_start');
  const startWords = [
    mineAtStart === undefined ? undefined : `pagewire at start ${mineAtStart} MiB`,
    theirsAtStart === undefined ? undefined : `Playwright MCP at start ${theirsAtStart} MiB`,
    report.node_floor_mib === undefined ? undefined : `a Node process that only waits ${report.node_floor_mib} MiB`,
  ].filter((words) => words !== undefined);
  out.push({
    target: 'server memory (PSS) ≤ 0.5× Playwright MCP',
    where: `after the run${startWords.length > 0 ? `; ${startWords.join(', ')}` : ''}`,
    pagewire: mine === undefined ? 'not measured' : `${mine} MiB`,
    limit: theirs === undefined ? 'not measured' : `${(theirs * 0.5).toFixed(1)} MiB (0.5 × ${theirs})`,
    met: mine === undefined || theirs === undefined ? undefined : mine <= 0.5 * theirs,
  });
  return out;
}

const verdictWord = (
  met: boolean | undefined,
  belowFloor?: string,
) => (met === undefined ? 'NOT MEASURED' : met ? 'met' : belowFloor ? '**MISSED** (limit below the floor)' : '**MISSED**');

// --- the report ---------------------------------------------------------------------------------

function contendersIn(report: BenchReport): ContenderReport[] {
  return report.contenders;
}

function pageSection(report: BenchReport, page: PageResult): string {
  const cs = contendersIn(report);
  const head = ['', ...cs.map((c) => c.label)];
  const floorObs = median(page, FLOOR, 'observe_changed');
  const floorClick = median(page, FLOOR, 'click');
  const floorNav = median(page, FLOOR, 'navigate');
  const floorFill = median(page, FLOOR, 'fill');
  const pwOf = (name: SeriesName) => median(page, PW, name);
  const rows: string[][] = [];
  const row = (label: string, f: (c: ContenderReport) => string) => rows.push([label, ...cs.map(f)]);
  const notRun = (c: ContenderReport) => c.status !== 'ok';

  row(
    'observe, unchanged page: median / p90 ms',
    (c) => (notRun(c) ? 'not run' : cell(page, c.id, 'observe_unchanged')),
  );
  row(
    'observe after a change: median / p90 ms',
    (c) => (notRun(c) ? 'not run' : cell(page, c.id, 'observe_changed')),
  );
  row(
    '… × raw CDP floor',
    (c) => ratio(median(page, c.id, 'observe_changed'), floorObs),
  );
  row(
    '… pagewire ÷ this',
    (
      c,
    ) => (isFloor(c.id) ? '—' : ratio(pwOf('observe_changed'), median(page, c.id, 'observe_changed'))),
  );
  row('model-facing size', (c) => {
    const o = page.contenders[c.id]?.observation;
    if (!o) return '—';
    if (c.id === FLOOR) return `(raw JSON ${kb(o.wire_bytes)})`;
    return kb(o.text_bytes);
  });
  row("… of which pagewire's separate `text`", (c) => {
    const o = page.contenders[c.id]?.observation;
    return c.id === PW && o?.text_part_bytes !== undefined ? kb(o.text_part_bytes) : '';
  });
  row('interactive elements in it', (c) => {
    const o = page.contenders[c.id]?.observation;
    if (!o) return '—';
    return `${o.interactive}${o.truncated ? ' (truncated)' : ''}`;
  });
  row('bytes per interactive element', (c) => {
    const o = page.contenders[c.id]?.observation;
    return o && c.id !== FLOOR && o.bytes_per_interactive !== undefined ? `${o.bytes_per_interactive} B` : '—';
  });
  row('… pagewire ÷ this (size; per element)', (c) => {
    const mine = page.contenders[PW]?.observation;
    const o = page.contenders[c.id]?.observation;
    if (!mine || !o || c.id === FLOOR) return '—';
    return `${ratio(mine.text_bytes, o.text_bytes)}; ${ratio(mine.bytes_per_interactive, o.bytes_per_interactive)}`;
  });
  row(
    'click: median / p90 ms',
    (c) => (notRun(c) ? 'not run' : cell(page, c.id, 'click')),
  );
  row(
    '… answer carries a fresh observation',
    (c) => carries(page, c.id, 'click'),
  );
  row(
    '… × raw CDP floor',
    (c) => ratio(median(page, c.id, 'click'), floorClick),
  );
  row(
    'click → fresh observation: median / p90 ms',
    (c) => (notRun(c) ? 'not run' : cell(page, c.id, 'click_observed')),
  );
  row(
    '… pagewire ÷ this',
    (
      c,
    ) => (isFloor(c.id) ? '—' : ratio(pwOf('click'), median(page, c.id, 'click_observed'))),
  );
  row(
    'fill: median / p90 ms',
    (c) => (notRun(c) ? 'not run' : cell(page, c.id, 'fill')),
  );
  row(
    '… answer carries a fresh observation',
    (c) => (c.id === FLOOR ? '(raw JSON)' : carries(page, c.id, 'fill')),
  );
  row('… × raw CDP floor', (c) => ratio(median(page, c.id, 'fill'), floorFill));
  row(
    '… pagewire ÷ this',
    (
      c,
    ) => (isFloor(c.id) ? '—' : ratio(pwOf('fill'), median(page, c.id, 'fill'))),
  );
  for (const name of ['type', 'select'] as const) {
    const floor = median(page, FLOOR, name);
    row(`${name}: median / p90 ms`, (c) => (notRun(c) ? 'not run' : cell(page, c.id, name)));
    row('… answer carries a fresh observation', (c) => (c.id === FLOOR ? '(raw JSON)' : carries(page, c.id, name)));
    row('… × raw CDP floor', (c) => ratio(median(page, c.id, name), floor));
    row('… pagewire ÷ this', (c) => (isFloor(c.id) ? '—' : ratio(pwOf(name), median(page, c.id, name))));
  }
  row(
    'navigate: median / p90 ms',
    (c) => (notRun(c) ? 'not run' : cell(page, c.id, 'navigate')),
  );
  row(
    '… answer carries a fresh observation',
    (c) => carries(page, c.id, 'navigate'),
  );
  row(
    '… × raw CDP floor (DOMContentLoaded)',
    (c) => ratio(median(page, c.id, 'navigate'), floorNav),
  );
  if (cs.some((c) => c.id === PW_MCP)) {
    row(
      'MCP − WebSocket, median ms: observe after a change / click / fill / navigate',
      (c) => (c.id === PW_MCP ? mcpOverhead(page) : ''),
    );
  }
  if (cs.some((c) => c.id === PW_MCP) && cs.some((c) => c.id === MCP_FLOOR)) {
    row(
      "MCP − WebSocket − MCP floor (pagewire's own), median ms: same series",
      (c) => (c.id === PW_MCP ? mcpOverhead(page, MCP_FLOOR) : ''),
    );
  }

  const problems: string[] = [];
  for (const c of cs) {
    const r = page.contenders[c.id];
    if (!r) continue;
    if (r.open_error) {
      problems.push(
        `- ${c.label} could not open the page: ${esc(r.open_error)}`,
      );
    }
    for (const [name, s] of Object.entries(r.series)) {
      if (
        s && !s.same_as && (s.status === 'failed' || s.status === 'partial')
      ) {
        problems.push(
          `- ${c.label}, ${name}: ${s.status}, ${s.errors} of ${s.samples.length} timed calls failed: ${esc(s.note ?? '')}`,
        );
      }
    }
  }
  return [
    `### ${page.id} — ${page.description}`,
    '',
    `\`${page.path}\`; ${page.seconds} s for this page${
      page.load_after !== undefined ? `; 1-minute load average at its end: ${page.load_after}` : ''
    }.`,
    '',
    table(head, rows),
    ...(problems.length ? ['', 'Failures on this page:', '', ...problems] : []),
  ].join('\n');
}

function summaryTable(report: BenchReport): string {
  const cs = contendersIn(report);
  const page = (id: string) => report.pages.find((p) => p.id === id);
  const large = page('large-table');
  const form = page('form');
  const article = page('article');
  const rows: string[][] = [];
  const row = (label: string, f: (c: ContenderReport) => string) =>
    rows.push([
      label,
      ...cs.map((c) => (c.status !== 'ok' ? 'not run' : f(c))),
    ]);
  const med = (p: PageResult | undefined, id: string, name: SeriesName) => ms(median(p, id, name));
  row(
    'observe, large table, after a change (ms, median)',
    (c) => med(large, c.id, 'observe_changed'),
  );
  row(
    'observe, large table, unchanged (ms, median)',
    (c) => med(large, c.id, 'observe_unchanged'),
  );
  row(
    'model-facing size, large table (bytes per interactive element × elements)',
    (c) => {
      const o = large?.contenders[c.id]?.observation;
      if (!o || c.id === FLOOR) return '—';
      return `${kb(o.text_bytes)} (${o.bytes_per_interactive ?? '—'} B × ${o.interactive}${o.truncated ? ', truncated' : ''})`;
    },
  );
  row('model-facing size, form', (c) => {
    const o = form?.contenders[c.id]?.observation;
    return !o || c.id === FLOOR ? '—' : kb(o.text_bytes);
  });
  row(
    'click, form (ms, median)',
    (c) => `${med(form, c.id, 'click')}${series(form, c.id, 'click')?.observation === true ? ' (+ observation)' : ''}`,
  );
  row(
    'click → fresh observation, form (ms, median)',
    (c) => med(form, c.id, 'click_observed'),
  );
  for (const name of ['fill', 'type', 'select'] as const) {
    row(
      `${name}, form (ms, median)`,
      (c) => `${med(form, c.id, name)}${series(form, c.id, name)?.observation === true ? ' (+ observation)' : ''}`,
    );
  }
  row('navigate, article (ms, median)', (c) => med(article, c.id, 'navigate'));
  row('memory after the run: server / browser (MiB PSS)', (c) => {
    const m = c.memory;
    if (!m) return '—';
    return `${m.server_mib ?? '—'} / ${m.browser_mib ?? '—'}`;
  });
  return table(['', ...cs.map((c) => c.label)], rows);
}

function versions(report: BenchReport): string {
  return table(
    ['contender', 'version', 'started with', 'status'],
    report.contenders.map((c) => [
      c.label,
      esc(
        c.package_version ? `${c.package_version} (${c.version})` : c.version,
      ),
      `\`${esc(c.command || '—')}\``,
      c.status === 'ok'
        ? `ran${c.leftovers ? `; ${c.leftovers} process(es) outlived its shutdown and were ended` : ''}`
        : `**not run**: ${esc(c.error ?? '')}`,
    ]),
    false,
  );
}

function calls(report: BenchReport): string {
  return table(
    [
      'contender',
      'observe',
      'click',
      'click → observation',
      'fill',
      'type',
      'select',
      'navigate',
    ],
    report.contenders.map((c) => [
      c.label,
      esc(c.calls.observe),
      esc(c.calls.click),
      esc(c.calls.click_observed),
      esc(c.calls.fill),
      esc(c.calls.type ?? '—'),
      esc(c.calls.select ?? '—'),
      esc(c.calls.navigate),
    ]),
    false,
  );
}

function memoryTable(report: BenchReport): string {
  return table(
    [
      'contender',
      'server MiB (PSS)',
      'server processes',
      'browser MiB (PSS)',
      'browser processes',
    ],
    report.contenders.map((c) => {
      const m = c.memory;
      if (c.status !== 'ok') return [c.label, 'not run', '—', 'not run', '—'];
      if (!m) return [c.label, '—', '—', '—', '—'];
      return [
        c.label,
        String(m.server_mib ?? '—'),
        String(m.server_processes),
        String(m.browser_mib ?? '—'),
        String(m.browser_processes),
      ];
    }),
  );
}

function scaleSection(scale: ScaleReport): string {
  const floor = scale.steps.some((s) => s.floor);
  return [
    '## Many sessions on one server',
    '',
    `One pagewire server process and its browser; per step N clients, each with its own connection, session and tab of ` +
    `fixtures/pages/counter.html, each clicking "Increment" with the fresh observation of its previous answer for ${scale.seconds} s ` +
    '(the first second not counted); then the sessions close. Memory: PSS of the whole process tree (server and browser) at the ' +
    "step's end (bench/scale.ts, `npm run bench:scale` alone)." +
    (floor
      ? ' After each step, the raw CDP floor of the same size in a browser of its own: N browser contexts, each clicking the same ' +
        'button (`Input.dispatchMouseEvent` ×3) and reading its whole accessibility tree, all at once with no server ' +
        '(bench/scale-floor.ts).'
      : ''),
    '',
    table(
      [
        'sessions',
        'clicks/s',
        'p50 ms',
        'p95 ms',
        'errors',
        'tree MiB (PSS)',
        'load after',
        ...(floor ? ['floor clicks/s', 'floor p50 ms', 'floor p95 ms'] : []),
      ],
      scale.steps.map((s) => [
        String(s.sessions),
        String(s.clicks_per_s),
        String(s.p50_ms),
        String(s.p95_ms),
        String(s.errors),
        String(s.tree_pss_mib ?? '—'),
        String(s.load_after),
        ...(floor ? [String(s.floor?.clicks_per_s ?? '—'), String(s.floor?.p50_ms ?? '—'), String(s.floor?.p95_ms ?? '—')] : []),
      ]),
    ),
  ].join('\n');
}

export function renderResults(report: BenchReport): string {
  const v = verdicts(report);
  const missed = v.filter((x) => x.met === false);
  const notRun = report.contenders.filter((c) => c.status !== 'ok');
  const m = report.machine;
  return [
    '# pagewire side by side: Playwright MCP, chrome-devtools-mcp, agent-browser',
    '',
    `Generated by \`npm run bench\` (bench/peers.ts) on ${report.date.slice(0, 10)} (${report.date}). ` +
    `Every sample of this run was written to bench/RESULTS.json, a local file that is not committed.`,
    '',
    `- Machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gib} GiB; ${m.os}; Node ${m.node}.`,
    `- Browser for everyone: ${report.browser.version} at \`${report.browser.path}\`, headless, 1280×720.`,
    `- Runs: ${report.runs} timed observations and ${report.act_runs} timed clicks, fills and navigations per series and contender, ` +
    `each series after ${report.warmups} untimed warm-up round${report.warmups === 1 ? '' : 's'}; ` +
    `contenders interleaved call by call (A B C D E, A B C D E, …). Whole run: ${report.seconds} s.`,
    `- Before each call the runner waits until the machine is quiet (below ${QUIET_MAX_BUSY_CORES} busy cores over ${QUIET_WINDOW_MS} ms, ` +
    `${QUIET_CAP_MS} ms at most), as between an agent's calls: each call is timed without another tool's leftover work.`,
    `- Load average (1/5/15 min) before: ${report.load_average.before.join(' / ')}, after: ${report.load_average.after.join(' / ')}.`,
    '',
    '## Summary',
    '',
    summaryTable(report),
    '',
    '## Targets',
    '',
    table(
      ['target', 'where', 'pagewire', 'limit', 'verdict'],
      v.map((
        x,
      ) => [x.target, x.where, x.pagewire, x.limit, verdictWord(x.met, x.belowFloor)]),
      false,
    ),
    '',
    ...(missed.length
      ? [
        `**pagewire misses ${missed.length} of ${v.length} target checks:**`,
        '',
        ...missed.map((x) =>
          `- ${x.target}, ${x.where}: pagewire ${x.pagewire}; the target is ${x.limit}` +
          (x.belowFloor ? `, below ${x.belowFloor}.` : '.')
        ),
      ]
      : [
        v.some((x) => x.met === undefined)
          ? 'Some target checks could not be measured (see above).'
          : 'pagewire meets every target check in this run.',
      ]),
    ...(notRun.length
      ? [
        '',
        ...notRun.map((c) => `**${c.label} did not run:** ${esc(c.error ?? '')}`),
      ]
      : []),
    '',
    '## Per page',
    '',
    'Times are client round trips (request written → answer parsed) in milliseconds, median / p90. ' +
    '"× raw CDP floor" divides by the floor\'s median for the same page; "pagewire ÷ this" divides pagewire\'s median by that column\'s ' +
    "(below 1 means pagewire is faster or smaller). pagewire's click always carries a fresh observation, so its " +
    '"click → fresh observation" row repeats its click; for tools whose click answer has no observation and no option for one ' +
    "(Playwright MCP, agent-browser, the floor), that row is the sum of the click's and the after-a-change observation's " +
    'medians (and p90s), marked "sum".',
    '',
    ...report.pages.map((page) => pageSection(report, page) + '\n'),
    ...(report.scale ? [scaleSection(report.scale), ''] : []),
    '## Memory after the run',
    '',
    'Proportional set size (shared pages split among the processes that map them), read from /proc once every page was done, ' +
    'each contender holding its browser on the last page. "Server" is everything of the contender that is not Chromium ' +
    '(for agent-browser: the MCP process and its daemon).',
    '',
    memoryTable(report),
    '',
    '## Versions and how each was started',
    '',
    versions(report),
    '',
    '## What each measured call is',
    '',
    calls(report),
    '',
    '## Method',
    '',
    '- The fixture pages (fixtures/pages) are served on 127.0.0.1 by test/helpers/fixture-server.ts; the shadow/iframe page ' +
    'loads its cross-site frame from `localhost` on the same server. Each contender has its own Chromium (the same binary) ' +
    "and all of them are on the same page at the same time; before a page's series each one navigates there and waits for `load` (untimed).",
    '- Series per page, in this order: observe on an unchanged page (caches may answer); observe right after a change ' +
    "(one text node set by a line of JavaScript through the tool's own evaluate call, untimed), which no cache can skip; " +
    "click; click with a fresh observation (only where that is one call: chrome-devtools-mcp's `includeSnapshot`); fill; " +
    'typing key by key after what the field holds (the same field); choosing one of two options of a native select in turn; ' +
    'navigation to the same URL (a new document each time). Clicks and fills go to the same element every time ' +
    '(see bench/peers/pages.ts): a button, a checkbox, a button inside two shadow roots, an in-page link.',
    '- The raw CDP floor reads every frame of the page, as pagewire does: one `Accessibility.getFullAXTree` per frame, all sent ' +
    'at once, the cross-site frame on its own session (auto-attached). Which frames there are is listed untimed after the page loads.',
    "- Each of the floor's acts also times its input and one forced layout of the main frame after it (a `Runtime.evaluate` " +
    'of `getBoundingClientRect()`): every read of the changed page waits for that layout first, so no act with a fresh ' +
    'observation comes sooner. A goal whose limit (a peer\'s bare act) is below it is marked "limit below the floor".',
    "- Model-facing size is the UTF-8 size of what a model reads from one observation: pagewire's default `observe {}` " +
    "(its `tree`, which carries the page text clipped; the full `text` is opt-in and not counted), and the whole text of the MCP tools' results (headers included). Interactive elements " +
    'are counted in that text with one role list for all (button, link, textbox, searchbox, checkbox, radio, combobox, listbox, ' +
    'slider, spinbutton, switch, tab, menuitem*, treeitem).',
    '- Each contender is used with its defaults, as an agent would get it: pagewire keeps 150 refs (`max_elements`), ' +
    "agent-browser's MCP snapshot lists interactive elements only, Playwright MCP waits 500 ms after an action for the page " +
    "to settle (`--timeout-settle`), and Playwright MCP's action answers link the fresh snapshot as a .yml file instead of including it.",
    "- Refs for a click or fill are taken from each tool's latest snapshot by role and accessible name; the raw CDP floor " +
    "aims at the element's centre (untimed) and times only its three Input.dispatchMouseEvent calls; its fill finds the field " +
    '(untimed), then times one call that focuses it and selects its text, `Input.insertText` and the same full read as its observe ' +
    "(every frame), with no focus check and no wait for the page's handlers.",
    '- A call that fails is counted and reported; after 3 consecutive failures a contender is left out of that series. ' +
    'Medians and p90 are over successful calls (nearest rank).',
    "- agent-browser's npm package declares Node ≥ 24 (npm warns EBADENGINE on Node 20); the bench starts its native Linux " +
    'binary from the package directly (`agent-browser mcp`), which does not use Node at all. Its install script (which would ' +
    'only mark the binary executable) is skipped by `npm ci --ignore-scripts`; the bench sets the bit itself.',
    '- pagewire over MCP calls `/mcp` of the same kind of pagewire process through the official SDK v2 client (Streamable HTTP, ' +
    'after a tools/list, so the client checks every result against its outputSchema, as a host does). The MCP floor, run right ' +
    'after it in every round, replays its call of the round with the same client to a bare SDK v2 server on 127.0.0.1 ' +
    "(bench/peers/mcp-floor-server.ts: pagewire's listed tools, each answering pagewire's answer, handed over untimed): " +
    'the same bytes and the same validation with no browser and nothing of pagewire, what any MCP server on the SDK pays. ' +
    '"MCP − WebSocket − MCP floor" is then what pagewire\'s own MCP code adds (a slight underestimate: the WebSocket ' +
    "contender's round trip, a fraction of a millisecond, is subtracted with it).",
    "- pagewire runs as a child process (`node dist/src/main.js`), so its memory is measured like the others'; " +
    '`--allow-raw-cdp` is on only for the untimed set-up (waiting for load, changing the page).',
    '',
  ].join('\n');
}

export function renderReadmeBlock(report: BenchReport): string {
  const v = verdicts(report);
  const targets = [...new Set(v.map((x) => x.target))];
  const met = v.filter((x) => x.met === true).length;
  const word = (
    m: boolean | undefined,
    belowFloor: string | undefined,
  ) => (m === undefined ? 'not measured' : m ? 'met' : belowFloor ? '**missed** (limit below the floor)' : '**missed**');
  return [
    README_START,
    `Measured ${report.date.slice(0, 10)} on ${report.machine.cores} cores (${report.machine.cpu}), ${report.browser.version}, ` +
    `${report.runs} interleaved observations and ${report.act_runs} actions per series and tool; full tables, versions and method in [RESULTS.md](RESULTS.md).`,
    '',
    summaryTable(report),
    '',
    `Targets: pagewire meets ${met} of ${v.length} checks.`,
    '',
    ...targets.map(
      (target) =>
        `- ${target}: ` +
        v
          .filter((x) => x.target === target)
          .map((x) =>
            `${x.where.replace(/ \(median\)$/, '')} ${word(x.met, x.belowFloor)} (${x.pagewire} vs ${x.limit.replace(/ \(.*\)$/, '')})`
          )
          .join('; '),
    ),
    README_END,
  ].join('\n');
}

/** Replaces the block between the markers in `path` (bench/README.md); returns false when there are no markers. */
export function updateReadme(path: string, block: string): boolean {
  const text = readFileSync(path, 'utf8');
  const start = text.indexOf(README_START);
  const end = text.indexOf(README_END);
  if (start === -1 || end === -1 || end < start) return false;
  writeFileSync(
    path,
    text.slice(0, start) + block + text.slice(end + README_END.length),
  );
  return true;
}

const SERIES_LABELS: Array<[SeriesName, string]> = [
  ['observe_unchanged', 'observe, unchanged'],
  ['observe_changed', 'observe, after a change'],
  ['observe_500', 'observe with room for 500 refs, after a change'],
  ['click', 'click'],
  ['fill', 'fill'],
  ['type', 'type (key by key)'],
  ['select', 'select'],
  ['navigate', 'navigate (pagewire, Playwright MCP: with a fresh observation)'],
];

/**
 * Every series of every page side by side, median / p90 ms (what a partial run prints: the
 * summary block names only the pages and series of a full run).
 */
export function renderSeriesTables(report: BenchReport): string {
  const contenders = contendersIn(report);
  return report.pages.map((page) => {
    const rows = SERIES_LABELS.filter(([name]) => contenders.some((c) => page.contenders[c.id]?.series[name]?.stats))
      .map((
        [name, label],
      ) => [label, ...contenders.map((c) => cell(page, c.id, name))]);
    return `${page.id} (median / p90 ms)\n\n${table(['', ...contenders.map((c) => c.label)], rows)}`;
  }).join('\n\n');
}

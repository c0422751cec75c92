// The runner: every contender on the same page at once (each with its own browser), each series
// interleaved call by call (A B C D E, A B C D E, …) so that machine noise hits all alike.
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { type ActOutcome, type Contender, errorText, type ObserveOutcome, type PageSpec, type SeriesName, utf8 } from './contender.ts';
import { type Stats, stats } from './stats.ts';

export type { SeriesName } from './contender.ts';

export interface Sample {
  ms: number;
  ok: boolean;
  /** Model-facing bytes of the answer (observations: the text a model reads). */
  bytes: number;
  observation?: boolean;
  error?: string;
  /** The raw CDP floor's input and the layout after it (ActOutcome.settled_ms). */
  settled_ms?: number;
}

export interface SeriesResult {
  status: 'ok' | 'partial' | 'failed' | 'not_applicable';
  /** Why not measured, or the first error seen. */
  note?: string;
  /** Timed samples (after warm-ups), in call order. */
  samples: Sample[];
  /** Over the successful samples. */
  stats?: Stats;
  errors: number;
  /** The answers carried a fresh observation (all successful samples agree, else "mixed"). */
  observation?: boolean | 'mixed';
  /** Same call as another series (pagewire: the click already carries the observation). */
  same_as?: SeriesName;
  /** Median of the untimed set-up before each call (changing the page), in ms. */
  setup_median_ms?: number;
  /** The raw CDP floor: median of its input and the layout after it (Sample.settled_ms). */
  settled_median_ms?: number;
  /**
   * Not measured as one call: the sum of two series' medians (and of their p90s), for tools whose
   * click answer carries no observation, so a second call is needed.
   */
  derived_from?: SeriesName[];
}

export interface ObservationFacts {
  /** UTF-8 bytes of what the model reads. */
  text_bytes: number;
  interactive: number;
  bytes_per_interactive?: number;
  refs?: number;
  truncated?: boolean;
  /** pagewire: the bytes of its separate `text` (part of text_bytes). */
  text_part_bytes?: number;
  wire_bytes: number;
  /** The text itself (first 2,000 characters), so a reader can see what was measured. */
  excerpt: string;
}

export interface PageContenderResult {
  open_error?: string;
  observation?: ObservationFacts;
  series: Partial<Record<SeriesName, SeriesResult>>;
}

export interface PageResult {
  id: string;
  path: string;
  url: string;
  description: string;
  seconds: number;
  /** 1-minute load average when the page was done (other work on the machine shows here). */
  load_after?: number;
  contenders: Record<string, PageContenderResult>;
}

const GIVE_UP_AFTER = 3;

type Call = (c: Contender, i: number) => Promise<Sample>;

function fromActOutcome(outcome: ActOutcome, ms: number): Sample {
  return {
    ms: outcome.ms ?? ms,
    ok: outcome.ok,
    bytes: outcome.text_bytes,
    observation: outcome.observation,
    ...(outcome.error ? { error: outcome.error } : {}),
    ...(outcome.settled_ms !== undefined ? { settled_ms: outcome.settled_ms } : {}),
  };
}

async function timedAct(run: () => Promise<ActOutcome>): Promise<Sample> {
  const started = performance.now();
  try {
    const outcome = await run();
    return fromActOutcome(outcome, performance.now() - started);
  } catch (error) {
    return { ms: performance.now() - started, ok: false, bytes: 0, error: errorText(error) };
  }
}

export interface RunOptions {
  /** Timed calls per observation series. */
  runs: number;
  /** Timed calls per click, fill and navigation series. */
  actRuns: number;
  warmups: number;
  log: (line: string) => void;
  /** Waits before each call until the machine is quiet (quiet.ts); the time waited, in ms. */
  quiet?: () => Promise<number>;
}

interface SeriesSpec {
  call: Call;
  /** Timed rounds (after the warm-ups). */
  runs: number;
  /** Whether the contender has this call at all (else: not applicable). */
  has?: (c: Contender) => boolean;
  /** Untimed set-up before each call. */
  before?: (c: Contender, i: number) => Promise<void>;
}

/** Runs one series over the contenders, interleaved: round i calls each contender once. */
async function runSeries(
  name: SeriesName,
  contenders: Contender[],
  results: Record<string, PageContenderResult>,
  options: RunOptions,
  { call, runs, has = () => true, before }: SeriesSpec,
): Promise<void> {
  const active = new Map<Contender, { samples: Sample[]; errors: number; consecutive: number; note?: string; setup: number[] }>();
  for (const c of contenders) {
    if (!has(c) || (c.series !== undefined && !c.series.includes(name))) {
      results[c.id]!.series[name] ??= { status: 'not_applicable', samples: [], errors: 0, note: 'no such call' };
      continue;
    }
    active.set(c, { samples: [], errors: 0, consecutive: 0, setup: [] });
  }
  const rounds = options.warmups + runs;
  for (let i = 0; i < rounds; i++) {
    for (const [c, state] of active) {
      if (state.consecutive >= GIVE_UP_AFTER) continue;
      let sample: Sample;
      try {
        if (before) {
          const t0 = performance.now();
          await before(c, i);
          state.setup.push(performance.now() - t0);
        }
        if (options.quiet) await options.quiet();
        sample = await call(c, i);
      } catch (error) {
        sample = { ms: 0, ok: false, bytes: 0, error: `set-up failed: ${errorText(error)}` };
      }
      if (!sample.ok) {
        state.errors++;
        state.consecutive++;
        state.note ??= sample.error ?? 'failed';
        if (state.consecutive >= GIVE_UP_AFTER) {
          state.note = `gave up after ${GIVE_UP_AFTER} consecutive failures; first error: ${state.note}`;
          options.log(`  ${c.label}: ${name}: ${state.note}`);
        }
      } else {
        state.consecutive = 0;
      }
      if (i >= options.warmups) state.samples.push(sample);
    }
  }
  for (const [c, state] of active) {
    const good = state.samples.filter((s) => s.ok);
    const observed = new Set(good.map((s) => s.observation));
    const settled = good.flatMap((s) => (s.settled_ms === undefined ? [] : [s.settled_ms]));
    const result: SeriesResult = {
      status: good.length === 0 ? 'failed' : state.errors > 0 ? 'partial' : 'ok',
      samples: state.samples,
      errors: state.errors,
      ...(state.note ? { note: state.note } : {}),
      ...(good.length ? { stats: stats(good.map((s) => s.ms))! } : {}),
      ...(observed.size === 1 && good[0]?.observation !== undefined ? { observation: good[0].observation } : {}),
      ...(observed.size > 1 ? { observation: 'mixed' as const } : {}),
      ...(state.setup.length ? { setup_median_ms: stats(state.setup)!.median_ms } : {}),
      ...(settled.length ? { settled_median_ms: stats(settled)!.median_ms } : {}),
    };
    results[c.id]!.series[name] = result;
  }
}

async function observeSample(
  c: Contender,
  call: (c: Contender) => Promise<ObserveOutcome> = (c) => c.observe(),
): Promise<Sample & { facts?: ObservationFacts }> {
  const started = performance.now();
  try {
    const outcome = await call(c);
    const ms = performance.now() - started;
    const textBytes = utf8(outcome.text);
    const facts: ObservationFacts = {
      text_bytes: textBytes,
      interactive: outcome.interactive,
      ...(outcome.interactive > 0 && textBytes > 0
        ? { bytes_per_interactive: Math.round((textBytes / outcome.interactive) * 10) / 10 }
        : {}),
      ...(outcome.refs !== undefined ? { refs: outcome.refs } : {}),
      ...(outcome.truncated !== undefined ? { truncated: outcome.truncated } : {}),
      ...(outcome.text_part_bytes !== undefined ? { text_part_bytes: outcome.text_part_bytes } : {}),
      wire_bytes: outcome.wire_bytes,
      excerpt: outcome.text.slice(0, 2_000),
    };
    return { ms, ok: true, bytes: textBytes, facts };
  } catch (error) {
    return { ms: performance.now() - started, ok: false, bytes: 0, error: errorText(error) };
  }
}

/** A two-call cost estimated from its parts: medians (and p90s) added. */
function sumOf(a: SeriesResult | undefined, b: SeriesResult | undefined, from: SeriesName[]): SeriesResult {
  if (!a?.stats || !b?.stats) {
    return { status: 'failed', samples: [], errors: 0, derived_from: from, note: `needs both ${from.join(' and ')}, and one failed` };
  }
  const add = (x: number, y: number) => Math.round((x + y) * 100) / 100;
  return {
    status: 'ok',
    samples: [],
    errors: 0,
    observation: true,
    derived_from: from,
    stats: {
      n: Math.min(a.stats.n, b.stats.n),
      median_ms: add(a.stats.median_ms, b.stats.median_ms),
      p90_ms: add(a.stats.p90_ms, b.stats.p90_ms),
      min_ms: add(a.stats.min_ms, b.stats.min_ms),
      max_ms: add(a.stats.max_ms, b.stats.max_ms),
    },
  };
}

/** Everything measured on one page, for every contender that could open it. */
export async function runPage(page: PageSpec, url: string, contenders: Contender[], options: RunOptions): Promise<PageResult> {
  const started = performance.now();
  const results: Record<string, PageContenderResult> = {};
  const open: Contender[] = [];
  for (const c of contenders) {
    results[c.id] = { series: {} };
    try {
      await c.open(url);
      open.push(c);
    } catch (error) {
      results[c.id]!.open_error = errorText(error);
      options.log(`  ${c.label}: could not open ${page.path}: ${errorText(error)}`);
    }
  }
  const wanted = new Set<SeriesName>(
    page.series ?? ['observe_unchanged', 'observe_changed', 'click', 'click_observed', 'fill', 'type', 'select', 'navigate'],
  );
  const step = async (label: string, run: () => Promise<void>, ...names: SeriesName[]) => {
    if (!names.some((name) => wanted.has(name))) return;
    const t0 = performance.now();
    await run();
    options.log(`  ${page.id} ${label}: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  };

  // 1. Observation of an unchanged page (caches may answer), keeping what the model reads.
  const lastFacts = new Map<string, ObservationFacts>();
  await step('observe (unchanged page)', () =>
    runSeries('observe_unchanged', open, results, options, {
      runs: options.runs,
      call: async (c) => {
        const { facts, ...plain } = await observeSample(c);
        if (facts) lastFacts.set(c.id, facts);
        return plain;
      },
    }), 'observe_unchanged');
  for (const [id, facts] of lastFacts) results[id]!.observation = facts;

  // 2. Observation right after the page changed (one text node), so no cache can answer.
  await step('observe (after a change)', () =>
    runSeries('observe_changed', open, results, options, {
      runs: options.runs,
      call: async (c) => {
        const { facts: _facts, ...plain } = await observeSample(c);
        return plain;
      },
      before: (c, i) => c.mutate(i),
    }), 'observe_changed');

  // 2b. The first look with room for 500 refs, right after the page changed (one text node).
  await step('observe, 500 refs (after a change)', () =>
    runSeries('observe_500', open, results, options, {
      runs: options.actRuns,
      call: async (c) => {
        const { facts: _facts, ...plain } = await observeSample(c, (c) => c.observeMore());
        return plain;
      },
      before: (c, i) => c.mutate(1_000 + i),
    }), 'observe_500');

  // A series the page asks for but cannot run (no such element) is not applicable for everyone.
  const stepOrNone = async (name: SeriesName, none: string | undefined, run: () => Promise<void>) => {
    if (!wanted.has(name)) return;
    if (none === undefined) return step(name, run, name);
    for (const c of open) results[c.id]!.series[name] = { status: 'not_applicable', samples: [], errors: 0, note: none };
  };

  const prepareAll = async () => {
    for (const c of open) await c.prepare(page).catch(() => undefined);
  };

  // 3. Click, and click with a fresh observation.
  await step('click', async () => {
    await prepareAll();
    await runSeries('click', open, results, options, { runs: options.actRuns, call: (c) => timedAct(() => c.click(page)) });
  }, 'click');
  await step('click with a fresh observation', async () => {
    await prepareAll();
    await runSeries('click_observed', open, results, options, {
      runs: options.actRuns,
      call: (c) => timedAct(() => c.clickObserved!(page)),
      has: (c) => c.clickObservation === 'option' && c.clickObserved !== undefined,
    });
  }, 'click_observed');
  for (const c of open) {
    if (!wanted.has('click')) break;
    const series = results[c.id]!.series;
    if (c.clickObservation === 'in-answer') series.click_observed = { ...series.click!, same_as: 'click' };
    if (c.clickObservation === 'second-call') {
      series.click_observed = sumOf(series.click, series.observe_changed, ['click', 'observe_changed']);
    }
  }

  // 4. Fill (pages with a text field).
  if (page.fill && wanted.has('fill')) {
    await step('fill', async () => {
      await prepareAll();
      await runSeries('fill', open, results, options, {
        runs: options.actRuns,
        call: (c, i) => timedAct(() => c.fill!(page, `bench text ${i}`)),
        has: (c) => c.fill !== undefined,
      });
    }, 'fill');
  } else if (wanted.has('fill')) {
    for (const c of open) {
      results[c.id]!.series.fill = { status: 'not_applicable', samples: [], errors: 0, note: 'the page has no text field' };
    }
  }

  // 5. Typing key by key into the same field, after what it holds.
  await stepOrNone('type', page.fill ? undefined : 'the page has no text field', async () => {
    await prepareAll();
    await runSeries('type', open, results, options, {
      runs: options.actRuns,
      call: (c, i) => timedAct(() => c.type!(page, ` typed ${i}`)),
      has: (c) => c.type !== undefined,
    });
  });

  // 6. Choosing an option of a native select, one of two in turn (a choice that changes the value every time).
  const select = page.select;
  await stepOrNone('select', select ? undefined : 'the page has no select', async () => {
    await prepareAll();
    await runSeries('select', open, results, options, {
      runs: options.actRuns,
      call: (c, i) => timedAct(() => c.select!(page, select!.labels[i % 2]!)),
      has: (c) => c.select !== undefined,
    });
  });

  // 7. Navigation to the same page (a new document every time).
  await step(
    'navigate',
    () => runSeries('navigate', open, results, options, { runs: options.actRuns, call: (c) => timedAct(() => c.navigate(url, page)) }),
    'navigate',
  );

  return {
    id: page.id,
    path: page.path,
    url,
    description: page.description,
    seconds: Math.round((performance.now() - started) / 100) / 10,
    load_after: Math.round(loadavg()[0]! * 100) / 100,
    contenders: results,
  };
}

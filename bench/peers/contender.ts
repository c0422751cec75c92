// What every contender offers the benchmark. Each method is one call as an agent would make it
// (timed by the runner around the await), plus untimed helpers to set the page up.

export interface ElementSpec {
  role: string;
  name: string;
  /** For the CDP floor, which has no refs: an expression that evaluates to the element. */
  js: string;
}

export interface PageSpec {
  id: string;
  path: string;
  description: string;
  click: ElementSpec;
  /** undefined: the page has no text field. The `type` series types into the same field. */
  fill: ElementSpec | undefined;
  /** A native `<select>` and two of its options' labels, chosen in turn by the `select` series. */
  select?: ElementSpec & { labels: readonly [string, string] };
  /**
   * The series run on the page (default: all but `observe_500`). A page where a full read takes
   * tens of seconds runs only the first-look series.
   */
  series?: readonly SeriesName[];
  /**
   * How the raw CDP floor reads the page after a fill: `full` (getFullAXTree per frame, the
   * default) or `prefix` (the first 150 refs, as pagewire's prefix read), where a full read takes
   * Chromium tens of seconds.
   */
  floorRead?: 'full' | 'prefix';
  /** Served from Debian's python3-doc (installed by the bench when missing). */
  pythonDocs?: boolean;
}

/** The runner's series (run.ts), by name. */
export type SeriesName =
  | 'observe_unchanged'
  | 'observe_changed'
  | 'observe_500'
  | 'click'
  | 'click_observed'
  | 'fill'
  | 'type'
  | 'select'
  | 'navigate';

export interface ObserveOutcome {
  /** The text a model reads: pagewire's tree (+ text); the MCP tools' result text. */
  text: string;
  /** Interactive elements in that text (same role list for every tool). */
  interactive: number;
  /** For pagewire: refs in `elements` and whether the observation was truncated. */
  refs?: number;
  truncated?: boolean;
  /** pagewire: bytes of the separate `text` within `text`. */
  text_part_bytes?: number;
  /** Bytes of the whole answer as it crossed the wire, for reference. */
  wire_bytes: number;
}

export interface ActOutcome {
  ok: boolean;
  /** The answer carries a fresh observation of the page. */
  observation: boolean;
  /** Bytes of the model-facing text of the answer. */
  text_bytes: number;
  error?: string;
  /** The timed part, when the call includes untimed set-up (the floor aims before it clicks). */
  ms?: number;
  /**
   * The raw CDP floor only: from the same start, the input and then the style and layout the
   * page's first read after it must wait for (one forced layout), before any read.
   */
  settled_ms?: number;
}

export type NavOutcome = ActOutcome;

export interface Contender {
  readonly id: string;
  readonly label: string;
  /** Package and version as it reported itself. */
  version: string;
  /** How it was started (command line), for the report. */
  command: string;
  /** How an observation, a click, a fill, typing, a choice and a navigation are made (for the report). */
  readonly calls: {
    observe: string;
    click: string;
    click_observed: string;
    fill: string;
    type: string;
    select: string;
    navigate: string;
  };
  readonly tag: string;
  /** Root pids (for memory, besides the tag). */
  pids(): number[];
  start(): Promise<void>;
  /** Untimed: navigate and wait until the page (and its frames) fired load. */
  open(url: string): Promise<void>;
  observe(): Promise<ObserveOutcome>;
  /**
   * An observation with room for 500 refs (pagewire: `max_elements: 500`); a tool without such a
   * limit makes its one snapshot.
   */
  observeMore(): Promise<ObserveOutcome>;
  /** Untimed: change the page's DOM (a text node), so no tool can answer from a cache. */
  mutate(i: number): Promise<void>;
  /** Untimed: resolve the refs the next click/fill series needs, from a fresh observation. */
  prepare(page: PageSpec): Promise<void>;
  /** The tool's own click (with its default result). */
  click(page: PageSpec): Promise<ActOutcome>;
  /**
   * How a click yields a fresh observation: in its own answer (pagewire), with an option of the
   * click call (`clickObserved`), or only through a second call (an observe right after it).
   */
  readonly clickObservation: 'in-answer' | 'option' | 'second-call';
  /** The series it takes part in, when not all (the read floor: navigate only). */
  readonly series?: readonly SeriesName[] | undefined;
  /** The click call with its observation option on (for 'option'). */
  clickObserved?(page: PageSpec): Promise<ActOutcome>;
  /** undefined: not measured for this contender. */
  fill?(page: PageSpec, text: string): Promise<ActOutcome>;
  /** Types `text` key by key into the page's fill field, after what it holds. */
  type?(page: PageSpec, text: string): Promise<ActOutcome>;
  /** Chooses the option labelled `label` of the page's select. */
  select?(page: PageSpec, label: string): Promise<ActOutcome>;
  /** Navigate to url and wait as the tool does (`page`: what the floors read after it). */
  navigate(url: string, page?: PageSpec): Promise<NavOutcome>;
  stop(): Promise<void>;
}

export const utf8 = (text: string): number => Buffer.byteLength(text, 'utf8');

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** JS run in the page to wait for load of the document (untimed set-up). */
export const WAIT_FOR_LOAD_JS =
  "new Promise((resolve) => document.readyState === 'complete' ? resolve(true) : addEventListener('load', () => resolve(true), { once: true }))";

/** JS run in the page to change it: one text node at the end of <body>. */
export function mutateJs(i: number): string {
  return `(() => { let el = document.getElementById('bench-tick'); if (!el) { el = document.createElement('p'); el.id = 'bench-tick'; document.body.append(el); } el.textContent = 'bench tick ${i}'; return true; })()`;
}

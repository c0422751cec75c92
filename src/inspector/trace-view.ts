// The trace view: a recorded run read back (PROTOCOL.md §13, "The inspector"). On the left the
// timeline of steps with thumbnails (all, or only refusals and errors); on the right the selected
// step: its result in words, its params, the frames before and after with the target's box, the
// observation it acted on with the acted refs lit, the diff to the next observation, and the
// events, console and network entries that arrived while it ran.
import type { ActResult, Observation } from '../client/exports.ts';
import { frameNoteElement, h, rowElement } from './dom.ts';
import { diffHunks, lineDiff } from './line-diff.ts';
import { frameNotes } from '../wire/frame-notes.ts';
import { blockerWords, ERROR_MEANINGS, errorDetails, eventRow, observationIn, observationWords } from './rows.ts';
import type { Trace, TraceBox, TraceEvent, TraceStep } from './trace-file.ts';
import { fellShort, lineNames, type StepView, stepViews } from './trace-steps.ts';

/** A value in a table cell: plain words for scalars, compact JSON (cut) for the rest. */
const CELL_JSON_CHARS = 400;

export class TraceView {
  readonly root: HTMLElement;
  readonly #title = h('span', { id: 'trace-name' });
  readonly #summary = h('span', { id: 'trace-summary', class: 'muted' });
  readonly #filter = h(
    'select',
    { id: 'trace-filter', 'aria-label': 'steps shown' },
    h('option', { value: 'all' }, 'All steps'),
    h('option', { value: 'short' }, 'Refusals and errors'),
  ) as HTMLSelectElement;
  readonly #body = h('div', { id: 'trace-body' });
  #trace: Trace | undefined;
  #views: StepView[] = [];
  #selected: number | undefined;

  /** `controls`: what the header offers besides the filter (Open trace…, the way back to live). */
  constructor(controls: HTMLElement) {
    this.#filter.addEventListener('change', () => this.#renderSteps());
    this.root = h(
      'div',
      { class: 'trace-view', id: 'trace-view' },
      h('header', {}, h('h1', {}, 'pagewire trace'), this.#title, this.#summary, h('label', {}, 'Show ', this.#filter), controls),
      this.#body,
    );
  }

  loading(name: string): void {
    this.#trace = undefined;
    this.root.dataset['state'] = 'loading';
    this.#title.textContent = name;
    this.#summary.textContent = '';
    this.#body.replaceChildren(h('p', { class: 'muted' }, `Opening ${name}…`));
  }

  /** A trace that cannot be shown: the sentence saying why, in the page. */
  fail(message: string): void {
    this.#trace = undefined;
    this.root.dataset['state'] = 'error';
    this.#summary.textContent = '';
    this.#body.replaceChildren(h('p', { id: 'trace-error', class: 'trace-error', role: 'alert' }, message));
  }

  show(trace: Trace): void {
    this.#trace = trace;
    this.#views = stepViews(trace);
    const { header } = trace;
    this.#title.textContent = trace.fileName;
    const seconds = ((header.ended_at - header.started_at) / 1000).toFixed(1);
    this.#summary.textContent = [
      `session ${header.session_id}`,
      `pagewire ${header.pagewire}`,
      `${trace.steps.length} steps`,
      `${trace.events.length} events${header.dropped_events ? ` (${header.dropped_events} dropped)` : ''}`,
      `${header.frames} frames${header.dropped_frames ? ` (${header.dropped_frames} dropped)` : ''}`,
      `${seconds} s from ${clock(header.started_at)}`,
    ].join(' · ');
    this.#body.replaceChildren(h('ol', { id: 'timeline' }), h('section', { id: 'step' }));
    this.#selected = this.#views[0]?.step.seq;
    this.#renderSteps();
    this.#renderDetail();
    this.root.dataset['state'] = 'ready';
  }

  #renderSteps(): void {
    const trace = this.#trace;
    const timeline = this.#body.querySelector('#timeline');
    if (!trace || !timeline) return;
    const onlyShort = this.#filter.value === 'short';
    const shown = this.#views.filter((view) => !onlyShort || fellShort(view));
    timeline.replaceChildren(
      ...shown.map((view) => this.#stepItem(trace, view)),
      ...(shown.length === 0
        ? [h('li', { class: 'muted' }, onlyShort ? 'No refusals or errors in this trace.' : 'This trace has no steps.')]
        : []),
    );
  }

  #stepItem(trace: Trace, view: StepView): HTMLElement {
    const { step } = view;
    const thumb = h('img', { class: 'thumb', alt: '' }) as HTMLImageElement;
    const frame = step.frame_after ?? step.frame_before;
    if (frame) {
      void trace.frame(frame).then((url) => {
        if (url) thumb.src = url;
      });
    }
    return h(
      'li',
      {
        class: `step row ${view.row.tone}${step.seq === this.#selected ? ' selected' : ''}`,
        'data-seq': String(step.seq),
        'data-tone': view.row.tone,
        'data-method': step.method,
        click: () => this.#select(step.seq),
      },
      thumb,
      h('span', { class: 'at muted' }, `#${step.seq} +${((step.at - trace.header.started_at) / 1000).toFixed(1)} s`),
      h('span', { class: 'words' }, view.row.text),
    );
  }

  #select(seq: number): void {
    this.#selected = seq;
    for (const item of this.#body.querySelectorAll<HTMLElement>('#timeline [data-seq]')) {
      item.classList.toggle('selected', item.dataset['seq'] === String(seq));
    }
    this.#renderDetail();
  }

  #renderDetail(): void {
    const trace = this.#trace;
    const view = this.#views.find((v) => v.step.seq === this.#selected);
    const detail = this.#body.querySelector('#step');
    if (!trace || !detail) return;
    if (!view) {
      detail.replaceChildren(h('p', { class: 'muted' }, 'No step selected.'));
      return;
    }
    const { step } = view;
    const consoleEvents = view.events.filter((e) => e.kind === 'console');
    const network = view.events.filter((e) => e.kind === 'network');
    const others = view.events.filter((e) => e.kind !== 'console' && e.kind !== 'network');
    detail.replaceChildren(
      rowElement('h2', view.row, { id: 'step-title', 'data-seq': String(step.seq) }),
      h(
        'p',
        { class: 'muted' },
        `#${step.seq} · ${step.method}${step.tab_id ? ` · tab ${step.tab_id}` : ''} · ${clock(step.at)} · ${
          Math.round(step.duration_ms)
        } ms`,
      ),
      h(
        'div',
        { class: 'pair' },
        section('Result', 'step-result', resultTable(step)),
        section('Params', 'step-params', table(step.params)),
      ),
      section('Frames', 'step-frames', frames(trace, step)),
      h(
        'div',
        { class: 'pair' },
        section('Events', 'step-events', eventList(others)),
        section('Console', 'step-console', eventList(consoleEvents)),
      ),
      section('Network', 'step-network', eventList(network)),
      ...(view.after_events.length ? [section('After the step, before the next', 'step-after', eventList(view.after_events))] : []),
      h(
        'div',
        { class: 'pair' },
        section('Observation acted on', 'step-observation', treeView(view.before, view.refs)),
        section('Diff to the next observation', 'step-diff', diffView(view.before, view.after)),
      ),
    );
  }
}

function section(title: string, id: string, content: HTMLElement): HTMLElement {
  return h('section', { class: 'part', id }, h('h3', {}, title), content);
}

function clock(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(11, 23)} UTC`;
}

function cell(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value !== 'object' || value === null) return String(value);
  const json = JSON.stringify(value);
  return json.length > CELL_JSON_CHARS ? `${json.slice(0, CELL_JSON_CHARS - 1)}…` : json;
}

function table(record: Record<string, unknown>, words: Record<string, string> = {}): HTMLElement {
  const entries = Object.entries(record).filter(([, value]) => value !== undefined);
  if (entries.length === 0) return h('p', { class: 'muted' }, 'none');
  return h(
    'table',
    { class: 'fields' },
    h(
      'tbody',
      {},
      ...entries.map(([key, value]) =>
        h(
          'tr',
          { 'data-field': key },
          h('th', {}, key),
          h('td', {}, cell(value), words[key] ? h('span', { class: 'muted' }, ` — ${words[key]}`) : undefined),
        )
      ),
    ),
  );
}

/** The result in words: the act's four fields and why it fell short, or the call's error, or what it answered. */
function resultTable(step: TraceStep): HTMLElement {
  if (step.error) {
    const { type, text } = errorDetails(step.error);
    return table(
      { error_type: type, code: step.error.code, message: step.error.message, error_text: text },
      type && ERROR_MEANINGS[type] ? { error_type: ERROR_MEANINGS[type] } : {},
    );
  }
  const result = step.result;
  if (typeof result !== 'object' || result === null) return h('p', { class: 'muted' }, result === undefined ? 'no result' : cell(result));
  const record = result as Record<string, unknown>;
  const observation = observationIn(result);
  if (step.method === 'act' && typeof record['status'] === 'string') {
    const hit = record['hit'] as ActResult['hit'];
    const type = typeof record['error_type'] === 'string' ? record['error_type'] : undefined;
    return table(
      {
        status: record['status'],
        execution: record['execution'],
        observation: record['observation'],
        postcondition: record['postcondition'],
        completed: Array.isArray(record['completed']) ? record['completed'].join(', ') || 'none' : undefined,
        error_type: type,
        error_text: record['error_text'],
        blocker: hit ? blockerWords(hit) : undefined,
        replayed: record['replayed'],
        fresh_state: observation ? observationWords(observation) : undefined,
      },
      type && ERROR_MEANINGS[type] ? { error_type: ERROR_MEANINGS[type] } : {},
    );
  }
  // Any other call: its own fields, an observation said briefly (it is shown whole below).
  const plain: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    plain[key] = key === 'fresh_state' || key === 'observation' || value === observation ? undefined : value;
  }
  if (observation) {
    for (const key of Object.keys(plain)) if (!['status', 'target_id', 'error_text'].includes(key)) plain[key] = undefined;
    plain['observation'] = `${observationWords(observation)} ${observation.url}`;
  }
  return table(plain);
}

function frames(trace: Trace, step: TraceStep): HTMLElement {
  if (!step.frame_before && !step.frame_after) return h('p', { class: 'muted' }, 'no frames for this step');
  return h(
    'div',
    { class: 'frames' },
    frameFigure(trace, 'before', step.frame_before, step.target?.box, step.frame_scale),
    frameFigure(trace, 'after', step.frame_after, undefined, undefined),
  );
}

/** One frame, with the target's box drawn over it in % of the image (it scales with it). */
function frameFigure(
  trace: Trace,
  label: string,
  path: string | undefined,
  box: TraceBox | undefined,
  scale: number | undefined,
): HTMLElement {
  if (!path) return h('figure', { class: 'frame-figure', 'data-frame': label }, h('figcaption', { class: 'muted' }, `${label}: no frame`));
  const image = h('img', { class: 'frame', alt: `the page ${label} the step` }) as HTMLImageElement;
  const stage = h('div', { class: 'stage' }, image);
  image.addEventListener('load', () => {
    if (!box) return;
    // CSS px of the viewport → image px (frame_scale, else the viewport's width) → % of the image.
    const k = scale ?? (trace.header.viewport ? image.naturalWidth / trace.header.viewport.width : 1);
    const [w, hgt] = [image.naturalWidth, image.naturalHeight];
    stage.append(
      h('div', {
        class: 'target',
        style: `left:${(box.x * k / w) * 100}%;top:${(box.y * k / hgt) * 100}%;width:${(box.width * k / w) * 100}%;height:${
          (box.height * k / hgt) * 100
        }%`,
      }),
    );
  });
  void trace.frame(path).then((url) => {
    if (url) image.src = url;
    else stage.replaceChildren(h('p', { class: 'muted' }, `${path} is missing or damaged in this file`));
  });
  return h('figure', { class: 'frame-figure', 'data-frame': label }, stage, h('figcaption', { class: 'muted' }, label));
}

/** The tree an observation showed, the lines naming the acted refs lit. */
function treeView(observation: Observation | undefined, refs: readonly string[]): HTMLElement {
  if (!observation) return h('p', { class: 'muted' }, 'no observation before this step');
  return h(
    'div',
    {},
    h('p', { class: 'muted' }, `${observationWords(observation)} · ${observation.url}`),
    ...frameNotes(observation.frames).map(frameNoteElement),
    h(
      'pre',
      { class: 'tree' },
      ...observation.tree.split('\n').map((line) => h('span', { class: lineNames(line, refs) ? 'line acted' : 'line' }, line, '\n')),
    ),
  );
}

function diffView(before: Observation | undefined, after: Observation | undefined): HTMLElement {
  if (!before || !after) return h('p', { class: 'muted' }, before ? 'no later observation' : 'no observation to compare');
  if (before === after) return h('p', { class: 'muted' }, 'the same observation');
  const lines = diffHunks(lineDiff(before.tree, after.tree));
  const caption = h('p', { class: 'muted' }, `${before.state_id} → ${after.state_id}${before.url === after.url ? '' : ` · ${after.url}`}`);
  if (!lines.some((line) => 'op' in line && line.op !== 'same')) {
    return h('div', {}, caption, h('p', { class: 'muted' }, 'the tree did not change'));
  }
  return h(
    'div',
    {},
    caption,
    h(
      'pre',
      { class: 'diff' },
      ...lines.map((line) =>
        'skipped' in line
          ? h('span', { class: 'line skipped' }, `  … ${line.skipped} unchanged\n`)
          : h('span', { class: `line ${line.op}` }, `${line.op === 'added' ? '+' : line.op === 'removed' ? '-' : ' '} ${line.line}\n`)
      ),
    ),
  );
}

function eventList(events: TraceEvent[]): HTMLElement {
  if (events.length === 0) return h('p', { class: 'muted' }, 'none');
  return h(
    'ul',
    { class: 'rows' },
    ...events.map((event) =>
      rowElement('li', eventRow(event.kind, event.data), { 'data-kind': event.kind, 'data-seq': String(event.seq) })
    ),
  );
}

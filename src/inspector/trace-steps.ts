// What the trace view shows of each step, worked out once when a trace opens: its row, the
// observation it acted on and the next one (for the diff), the refs it acted on, and the events
// that arrived while it ran.
import type { Observation } from '../client/exports.ts';
import { actionsOf, callRow, observationIn, type Row } from './rows.ts';
import type { Trace, TraceEvent, TraceStep } from './trace-file.ts';

export interface StepView {
  step: TraceStep;
  row: Row;
  /** The observation the step acted on (its `acted_on`), or else the last one seen before it on its tab. */
  before: Observation | undefined;
  /** The step's own observation, or else the next one seen on its tab. */
  after: Observation | undefined;
  /** The refs the step acted on: its target, and each action's ref. */
  refs: string[];
  events: TraceEvent[];
  /** Events that came after the step and before the next one began (no step was running). */
  after_events: TraceEvent[];
}

export function stepViews(trace: Trace): StepView[] {
  const observed = trace.steps.map((step) => observationIn(step.result));
  const bySeq = new Map(trace.steps.map((step, index) => [step.seq, index]));
  const onTab = (index: number, step: TraceStep) => {
    const observation = observed[index];
    return observation && (step.tab_id === undefined || observation.target_id === step.tab_id) ? observation : undefined;
  };
  const eventsOf = new Map<number, TraceEvent[]>();
  const betweenOf = new Map<number, TraceEvent[]>();
  for (const event of trace.events) {
    // An event between steps goes with the last step that began before it.
    const seq = event.step ?? trace.steps.findLast((step) => step.at <= event.at)?.seq;
    if (seq === undefined) continue;
    const into = event.step === undefined ? betweenOf : eventsOf;
    const list = into.get(seq) ?? [];
    list.push(event);
    into.set(seq, list);
  }
  return trace.steps.map((step, index) => {
    const actedOn = step.acted_on === undefined ? undefined : bySeq.get(step.acted_on);
    let before = actedOn === undefined ? undefined : observed[actedOn];
    for (let k = index - 1; before === undefined && actedOn === undefined && k >= 0; k--) before = onTab(k, step);
    let after = observed[index];
    for (let k = index + 1; after === undefined && k < trace.steps.length; k++) after = onTab(k, step);
    return {
      step,
      row: callRow(step.method, step.params, step.result, step.error),
      before,
      after,
      refs: actedRefs(step),
      events: eventsOf.get(step.seq) ?? [],
      after_events: betweenOf.get(step.seq) ?? [],
    };
  });
}

function actedRefs(step: TraceStep): string[] {
  const refs = new Set<string>();
  if (step.target) refs.add(step.target.ref);
  if (step.method === 'act') {
    for (const action of actionsOf(step.params)) {
      for (const key of ['ref', 'to_ref']) if (typeof action[key] === 'string') refs.add(action[key]);
    }
  }
  return [...refs];
}

/** What the refusals-and-errors filter keeps: a step that was refused or failed. */
export function fellShort(view: StepView): boolean {
  return view.row.tone === 'refused' || view.row.tone === 'failed';
}

/** Whether a line of a tree names one of `refs` (a ref outside the quoted names: docs/tree-format.md). */
export function lineNames(line: string, refs: readonly string[]): boolean {
  const unquoted = line.replace(/"(?:[^"\\]|\\.)*"/g, '""');
  return refs.some((ref) => new RegExp(`(^|\\s)${ref.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?=\\s|$)`).test(unquoted));
}

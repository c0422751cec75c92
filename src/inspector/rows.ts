// The readable rows of the inspector: one line of words for an act, a call and a session event,
// written the same way for the live logs and for a trace's steps, so that a person reads the
// agent's run in one language whichever view shows it (PROTOCOL.md §13, "The inspector").
import { actFailed } from '../wire/act-words.ts';
import { hitWords } from '../wire/blocker-line.ts';
import type { ActResult, EventData, EventKind, NetworkEntry, Observation } from '../client/exports.ts';

/** How a row reads at a glance: its colour in the logs, and what the refusals filter keeps. */
export type Tone = 'ok' | 'refused' | 'failed' | 'info';

export interface Row {
  text: string;
  tone: Tone;
}

/** What an act's outcome says, from a result or from its `act` event. */
export type ActOutcome = Pick<ActResult, 'status' | 'execution' | 'error_type' | 'error_text' | 'hit'>;

/** A JSON-RPC error as a trace keeps it (`{code, message, data}`). */
export interface CallError {
  code: number;
  message: string;
  /** The wire's error data (`error_type`, `error_text`…), as the trace kept it. */
  data?: unknown;
}

/** The error word and text of a call's error data, when it has them. */
export function errorDetails(error: CallError): { type?: string; text?: string } {
  const data = isRecord(error.data) ? error.data : {};
  return {
    ...(typeof data['error_type'] === 'string' ? { type: data['error_type'] } : {}),
    ...(typeof data['error_text'] === 'string' ? { text: data['error_text'] } : {}),
  };
}

/** Long texts (an error, a console line) are cut in a row; the step's details show them whole. */
const ROW_TEXT_CHARS = 160;

function cut(text: string, max = ROW_TEXT_CHARS): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

function quoted(text: unknown, max = 60): string {
  return JSON.stringify(cut(String(text), max));
}

/** One action of an act's params, as a person would say it: `click @12`, `fill @5 "ada"`. */
export function actionWords(action: Record<string, unknown>): string {
  const ref = typeof action['ref'] === 'string' ? ` ${action['ref']}` : '';
  const typed = action['secret'] !== undefined
    ? ` secret ${String(action['secret'])}`
    : action['text'] !== undefined
    ? ` ${quoted(action['text'])}`
    : '';
  switch (action['action']) {
    case 'click':
      return ref ? `click${ref}` : `click at ${String(action['x'])}, ${String(action['y'])}`;
    case 'type':
    case 'fill':
      return `${String(action['action'])}${ref}${typed}`;
    case 'check':
      return `${isChecked(action['checked']) ? 'check' : 'uncheck'}${ref}`;
    case 'select': {
      const values = action['label'] ?? action['value'] ?? (Array.isArray(action['values']) ? action['values'].join(', ') : '');
      return `select${ref} ${quoted(values)}`;
    }
    case 'press':
      return `press ${String(action['key'])}${ref ? ` on${ref}` : ''}`;
    case 'scroll':
      return `scroll${ref} by ${Number(action['delta_x'] ?? 0)}, ${Number(action['delta_y'] ?? 0)}`;
    case 'drag':
      return `drag${ref} to ${String(action['to_ref'])}`;
    case 'upload':
      return `upload${ref} ${Array.isArray(action['paths']) ? action['paths'].length : 0} file(s)`;
    case 'navigate':
      return `navigate ${String(action['url'])}`;
    default:
      return `${String(action['action'])}${ref}`;
  }
}

/** `check`'s word forms (PROTOCOL.md §7): anything but a false word checks. */
function isChecked(value: unknown): boolean {
  return typeof value === 'boolean' ? value : !/^(false|0|unchecked|no)$/i.test(String(value));
}

/** The actions of act params: the `actions` list, or the one inline action. */
export function actionsOf(params: Record<string, unknown>): Array<Record<string, unknown>> {
  if (Array.isArray(params['actions'])) return params['actions'] as Array<Record<string, unknown>>;
  return params['action'] === undefined ? [] : [params];
}

/** What covers the point a click aimed at: `covered by region "Cookie banner" @40; @41 dismisses it`. */
export function blockerWords(hit: NonNullable<ActResult['hit']>): string {
  return `covered by ${hitWords(hit, 60)}`;
}

/**
 * The error words of an act that failed rather than was refused: the action was sent, or the
 * page, tab or browser was lost under it. Every other word is a refusal: a check of PROTOCOL.md
 * §7 ("Order of checks") said no before the action was sent. Scrolling the target into view may
 * have begun (so `execution` can be `dispatched_unknown`), but not the click, keys or navigation.
 */
const FAILURES: ReadonlySet<string> = new Set([
  'timeout',
  'action_failed',
  'operation_cancelled',
  'invalid_params',
  'target_not_found',
  'browser_unavailable',
]);

export function outcomeTone(outcome: ActOutcome): Tone {
  if (!actFailed(outcome.status)) return 'ok';
  return outcome.error_type !== undefined && !FAILURES.has(outcome.error_type) ? 'refused' : 'failed';
}

/** An act's outcome in a word or two: its status when it went through, `refused` when a check said no, else its status said plainly. */
export function outcomeWords(outcome: ActOutcome): string {
  const tone = outcomeTone(outcome);
  const verdict = tone === 'ok' ? outcome.status : tone === 'refused' ? 'refused' : outcome.status.replaceAll('_', ' ');
  const why = outcome.hit ? blockerWords(outcome.hit) : outcome.error_text ? cut(outcome.error_text) : undefined;
  return `${verdict}${outcome.error_type ? `: ${outcome.error_type}` : ''}${why ? ` — ${why}` : ''}`;
}

/** An act: `act click @12 → refused: click_intercepted — covered by region "Cookie banner"`. */
export function actRow(actions: readonly string[], outcome: ActOutcome): Row {
  return { text: `act ${actions.join(', ') || '(no action)'} → ${outcomeWords(outcome)}`, tone: outcomeTone(outcome) };
}

/** A call that failed on the wire (not an act's outcome: the JSON-RPC error itself). */
export function errorWords(error: CallError): string {
  const { type, text } = errorDetails(error);
  return `error${type ? `: ${type}` : ''} — ${cut(text ?? error.message)}`;
}

/** An observation, briefly: `s12 "Checkout" 43 refs`. */
export function observationWords(observation: Pick<Observation, 'state_id' | 'title' | 'elements'>): string {
  return `${observation.state_id} ${quoted(observation.title, 40)} ${observation.elements.length} refs`;
}

/** A value of a call's params, briefly (the step's details show the params whole). */
function paramWords(params: Record<string, unknown>): string {
  return Object.entries(params)
    .filter(([key, value]) => key !== 'session_id' && key !== 'target_id' && value !== undefined && typeof value !== 'object')
    .map(([key, value]) => `${key}=${typeof value === 'string' ? quoted(value, 40) : String(value)}`)
    .join(' ');
}

/**
 * One call of a trace: its method, what it was asked, and how it ended. An act reads as in the
 * live log; a call that answered with an observation names it.
 */
export function callRow(method: string, params: Record<string, unknown>, result: unknown, error: CallError | undefined): Row {
  const asked = method === 'act'
    ? `act ${actionsOf(params).map(actionWords).join(', ')}`
    : [method, paramWords(params)].filter(Boolean).join(' ');
  if (error) return { text: `${asked} → ${errorWords(error)}`, tone: 'failed' };
  if (method === 'act' && isRecord(result) && typeof result['status'] === 'string') {
    return actRow(actionsOf(params).map(actionWords), result as unknown as ActOutcome);
  }
  const observation = observationIn(result);
  if (method === 'wait' && isRecord(result)) {
    const met = result['status'] === 'met';
    return {
      text: `${asked} → ${met ? 'met' : 'condition not met'}${observation ? ` · ${observationWords(observation)}` : ''}`,
      tone: met ? 'ok' : 'failed',
    };
  }
  return { text: `${asked} → ${observation ? observationWords(observation) : 'ok'}`, tone: 'ok' };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The observation a call answered with, wherever its result carries one: observe's result
 * itself, act's `fresh_state`, wait's and tabs.new's `observation`.
 */
export function observationIn(result: unknown): Observation | undefined {
  if (!isRecord(result)) return undefined;
  if (isObservation(result)) return result;
  for (const key of ['fresh_state', 'observation']) {
    const inner = result[key];
    if (isObservation(inner)) return inner;
  }
  return undefined;
}

function isObservation(value: unknown): value is Observation {
  return isRecord(value) && typeof value['tree'] === 'string' && typeof value['state_id'] === 'string' && Array.isArray(value['elements']);
}

function bytesWords(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} kB` : `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A URL as a row shows it: its path on the page's own site, else its host and path. */
function shortUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return cut(url, 80);
    return cut(`${parsed.host}${parsed.pathname}`, 80);
  } catch {
    return cut(url, 80);
  }
}

function networkRow(entry: NetworkEntry): Row {
  const path = shortUrl(entry.url);
  const time = entry.duration_ms !== undefined ? ` ${Math.round(entry.duration_ms)} ms` : '';
  const size = entry.bytes !== undefined ? ` ${bytesWords(entry.bytes)}` : '';
  if (entry.state === 'failed') {
    const why = entry.blocked_by ? `blocked by ${entry.blocked_by}` : (entry.failure ?? 'failed');
    return { text: `network ${entry.method} ${why} ${path}${time}`, tone: 'failed' };
  }
  if (entry.state === 'pending') return { text: `network ${entry.method} pending ${path}`, tone: 'info' };
  const status = entry.status ?? 0;
  return { text: `network ${entry.method} ${status} ${path}${time}${size}`, tone: status >= 400 ? 'failed' : 'info' };
}

/** One session event as words: `dialog confirm "Delete?" → accepted`, `network GET 200 /api/items 12 ms`. */
export function eventRow<K extends EventKind>(kind: K, data: EventData[K]): Row;
export function eventRow(kind: string, data: unknown): Row;
export function eventRow(kind: string, data: unknown): Row {
  const d = (isRecord(data) ? data : {}) as Record<string, never>;
  switch (kind) {
    case 'dialog': {
      const dialog = d as unknown as EventData['dialog'];
      const answer = dialog.handled ? ` → ${dialog.handled}` : ' (waiting for an answer)';
      return { text: `dialog ${dialog.type} ${quoted(dialog.message)}${answer}`, tone: 'info' };
    }
    case 'file_chooser': {
      const chooser = d as unknown as EventData['file_chooser'];
      return { text: `file chooser ${chooser.mode.replace('select_', '')}${chooser.ref ? ` ${chooser.ref}` : ''}`, tone: 'info' };
    }
    case 'download': {
      const download = d as unknown as EventData['download'];
      const size = download.total_bytes ? ` ${bytesWords(download.total_bytes)}` : '';
      return {
        text: `download ${quoted(download.suggested_filename)} ${download.state}${size}`,
        tone: download.state === 'canceled' ? 'failed' : 'info',
      };
    }
    case 'popup': {
      const popup = d as unknown as EventData['popup'];
      return { text: `popup ${popup.url} (tab ${popup.target_id})`, tone: 'info' };
    }
    case 'tab_closed':
      return { text: `tab closed ${(d as unknown as EventData['tab_closed']).target_id}`, tone: 'info' };
    case 'navigation': {
      const navigation = d as unknown as EventData['navigation'];
      return { text: `navigation ${navigation.url}${navigation.same_document ? ' (same document)' : ''}`, tone: 'info' };
    }
    case 'console': {
      const entry = d as unknown as EventData['console'];
      return { text: `console ${entry.level} ${cut(entry.text)}`, tone: entry.level === 'error' ? 'failed' : 'info' };
    }
    case 'crash': {
      const crash = d as unknown as EventData['crash'];
      return { text: `crash ${crash.scope}${crash.status ? ` ${crash.status}` : ''} — ${cut(crash.hint)}`, tone: 'failed' };
    }
    case 'session_closed':
      return { text: `session closed: ${(d as unknown as EventData['session_closed']).reason}`, tone: 'info' };
    case 'act': {
      const act = d as unknown as EventData['act'];
      return actRow(act.actions, act);
    }
    case 'network':
      return networkRow(d as unknown as NetworkEntry);
    default:
      return { text: `${kind} ${cut(JSON.stringify(data))}`, tone: 'info' };
  }
}

/** The act fields a person checks after the outcome: `execution completed · observation captured · postcondition met`. */
export function actFieldsWords(outcome: Pick<ActResult, 'execution' | 'observation' | 'postcondition'>): string {
  return `execution ${outcome.execution} · observation ${outcome.observation} · postcondition ${outcome.postcondition}`;
}

/** What each act error word means, for a person reading a step (PROTOCOL.md §7, "Order of checks"). */
export const ERROR_MEANINGS: Readonly<Record<string, string>> = {
  unknown_state: 'the state_id was never issued by this server',
  stale_state: 'that observation was already used or superseded: observe again',
  target_changed: 'the tab is not the one observed (or it is gone)',
  frame_detached: 'the observed frame is gone',
  document_changed: 'the page is another document than the one observed (navigated or reloaded)',
  ref_not_found: 'the ref is not in that observation',
  node_detached: 'the element of the ref was removed from the page',
  modal_blocked: 'a dialog or file chooser is open: answer it first',
  not_visible: 'the element has no visible point to act on',
  click_intercepted: 'another element is on top of the point the click aimed at',
  focus_mismatch: 'focus did not land on the element, so nothing was typed',
  timeout: 'it did not finish within its time budget',
  action_failed: 'the browser did not carry the action out',
  request_id_conflict: 'the request_id was used before with other params',
  operation_cancelled: 'the call was cancelled',
  forbidden: "the server's policy refuses it (domain policy, upload folder)",
  invalid_params: 'the params were not accepted',
  target_not_found: 'the tab is gone',
  browser_unavailable: 'the browser is gone',
};

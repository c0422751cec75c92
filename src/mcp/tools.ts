// The MCP tools (PROTOCOL.md §13): each names the wire method it maps onto (one, or one per
// `action`), takes that method's params as its arguments, and says how its result reads as text.
// The table holds no browser logic: every call goes through the method table, sessions, queue
// and checks that serve the WebSocket.
import type { JsonRpcErrorObject } from '../rpc/errors.ts';
import { actFailed, type ActStatus, NAVIGATIONS } from '../wire/index.ts';
import type { CallOutcome } from '../rpc/server.ts';
import type { IdsSaid } from './ids-said.ts';
import type { McpPrincipal, WireEvent } from './principal.ts';
import { utf8Length } from '../util/utf8.ts';
import { ACT_RESERVE, callBudget, OBSERVATION_RESERVE, observationBytes } from './budget.ts';
import { actText, eventListText, observationText, pdfText, screenshotText, sessionsText, tabsText, traceText, waitText } from './render.ts';

type Obj = Record<string, unknown>;

export interface ToolAnnotations {
  readonly readOnlyHint: boolean;
  readonly destructiveHint: boolean;
  readonly idempotentHint: boolean;
  readonly openWorldHint: boolean;
}

/** What a tool's run gets: its arguments, its principal, and the wire. */
export interface ToolCall {
  readonly args: Obj;
  readonly principal: McpPrincipal;
  /** The id of the session the call concerns once tapped (undefined: not known, or none). */
  readonly sessionId: string | undefined;
  /** Runs a wire method for this call (its cancellation and progress go along). */
  wire(method: string, params: Obj): Promise<CallOutcome>;
  /** The invalid_params error the wire would answer these params with, if any. */
  check(method: string, params: Obj): JsonRpcErrorObject | undefined;
  /** The host's budget of a tool result in bytes (PROTOCOL.md §14), unless the call gives its own. */
  readonly budget: number;
}

/** A tool's outcome before it becomes a CallToolResult: the wire's answer. */
export type ToolOutcome = CallOutcome;

export interface ToolSpec {
  readonly name: string;
  readonly description: string;
  readonly annotations: ToolAnnotations;
  /** The wire method, or the method for each value of the `action` argument. */
  readonly methods: string | Readonly<Record<string, string>>;
  /** Calls on a session: the session's events since the previous call are reported with the result. */
  readonly onSession: boolean;
  /** Wire params the tool does not offer (the defaults it fills in are documented in its description). */
  readonly hidden?: readonly string[];
  /** A different mapping than "the args are the method's params". */
  run?(call: ToolCall): Promise<ToolOutcome>;
  /** `ids`: what this conversation has read of ids so far (a text names each once). */
  text(result: Obj, args: Obj, news: readonly WireEvent[], ids: IdsSaid): string;
  /** The text places the events since the previous call itself (else they follow it). */
  readonly eventsInText?: true;
  /** Whether a successful wire result still reports a failure (act's statuses). */
  failed?(result: Obj): boolean;
  /**
   * Where the wire result holds an image ({mime, data}): the result itself, or its `screenshot`.
   * Its bytes travel once, in an image content block, and structuredContent names that block.
   */
  readonly image?: 'result' | 'screenshot';
  /**
   * The wire result names a file the server wrote (`path`, `size`): one of at most `maxBytes`
   * also travels whole, as an embedded resource; a larger one is left for the host to open.
   */
  readonly file?: { readonly mime: string; readonly maxBytes: number };
}

/** A PDF at most this large is embedded in the tool result (base64 makes it a third larger). */
export const PDF_EMBED_MAX_BYTES = 1024 * 1024;

/** Host image limits a screenshot is fitted to unless the call says otherwise (long side, area). */
export const SCREENSHOT_MAX_SIDE = 1568;
export const SCREENSHOT_MAX_PIXELS = 1_150_000;

const READ: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true };
const LOCAL_READ: ToolAnnotations = { ...READ, openWorldHint: false };
const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

export function invalidParams(path: string, message: string): ToolOutcome {
  const error: JsonRpcErrorObject = {
    code: -32602,
    message: `Invalid params at ${path}: ${message}`,
    data: { error_type: 'invalid_params', issues: [{ path, message }] },
  };
  return { ok: false, error };
}

/** The method an `action` tool maps its call onto, and the call's params without `action`. */
export function actionCall(spec: ToolSpec, args: Obj): { method: string; params: Obj } | ToolOutcome {
  if (typeof spec.methods === 'string') return { method: spec.methods, params: args };
  const { action, ...params } = args;
  const method = typeof action === 'string' && Object.hasOwn(spec.methods, action) ? spec.methods[action] : undefined;
  if (method === undefined) return invalidParams('action', `one of ${Object.keys(spec.methods).join(', ')}`);
  return { method, params };
}

/**
 * `params` with the wire's `max_bytes` for an observation that must fit, with `reserve` bytes of
 * the rest of the result, in the call's budget (its own `max_bytes`, else the host's).
 */
function observationBudget(call: ToolCall, params: Obj, reserve: number): Obj | ToolOutcome {
  const budget = callBudget(params['max_bytes'], call.budget);
  if (typeof budget !== 'number') return invalidParams('max_bytes', budget.invalid);
  return { ...params, max_bytes: observationBytes(budget, reserve) };
}

const isOutcome = (value: Obj | ToolOutcome): value is ToolOutcome => typeof value['ok'] === 'boolean';

/** act's params with its fresh observation's budget (`observe.max_bytes`) set as observationBudget does. */
function actBudget(call: ToolCall, params: Obj): Obj | ToolOutcome {
  const observe = params['observe'];
  if (observe !== undefined && (typeof observe !== 'object' || observe === null || Array.isArray(observe))) return params; // the wire says why
  const budget = callBudget((observe as Obj | undefined)?.['max_bytes'], call.budget);
  if (typeof budget !== 'number') return invalidParams('observe.max_bytes', budget.invalid);
  return { ...params, observe: { ...(observe as Obj | undefined), max_bytes: observationBytes(budget, ACT_RESERVE) } };
}

export const TOOLS: readonly ToolSpec[] = [
  {
    name: 'browser_observe',
    description:
      'Read a tab: its accessibility tree, one node a line, with refs (@1, @2…) on the elements you can act on, and a state_id ' +
      'naming this observation (format "markdown": the main content to read, refs inline). Act with browser_act on the refs of the newest observation: another observation of the tab ' +
      '(by anyone) or an act makes a state stale. In every tool, omitted ids mean your default session, its selected tab and frame; ' +
      'max_bytes caps a result (default 24 KB): a cut one ends with the cursor that reads on.',
    annotations: READ,
    methods: 'observe',
    onSession: true,
    async run(call) {
      const params = observationBudget(call, call.args, OBSERVATION_RESERVE);
      return isOutcome(params) ? params : call.wire('observe', params);
    },
    text: (result, _args, _news, ids) => observationText(result, ids),
  },
  {
    name: 'browser_act',
    description:
      'Act on what an observation showed: one action inline (action, ref, …) or a batch in `actions`. Actions: click (ref, or x,y), ' +
      'hover, type (text; clear_first, submit), fill (text), check (checked), select (value, values or label), press (key like ' +
      'Enter or Control+A; ref optional), scroll (delta_x, delta_y; ref optional), drag (ref, to_ref), upload (paths), navigate ' +
      '(url), back, forward, reload. wait_for {text|url|selector, state} waits for a condition after; expect {selector, text} ' +
      'checks one once. navigate, back, forward and reload need no state_id. Without state_id: your last observation of that tab (stale if observed ' +
      'since). Every result, refusals too, has a fresh observation to act on; read error_type.',
    annotations: WRITE,
    methods: 'act',
    onSession: true,
    async run(call) {
      const args = actBudget(call, call.args);
      if (isOutcome(args)) return args;
      // A lone navigation needs no observation: it goes to the wire without state_id (PROTOCOL.md §7).
      if (args['state_id'] !== undefined || NAVIGATIONS.has(String(args['action']))) return call.wire('act', args);
      const sessionId = call.sessionId;
      if (sessionId === undefined) return call.wire('act', args); // the wire says why (no such session)
      let targetId = args['target_id'];
      if (typeof targetId !== 'string') {
        const listed = await call.wire('tabs.list', { session_id: sessionId });
        if (!listed.ok) return listed;
        targetId = ((listed.result as { tabs: Array<{ target_id: string; selected: boolean }> }).tabs.find((tab) => tab.selected))
          ?.target_id;
      }
      const stateId = typeof targetId === 'string' ? call.principal.lastHanded(sessionId, targetId) : undefined;
      if (stateId === undefined) {
        return invalidParams('state_id', `no observation of tab ${String(targetId)} was handed to you yet: call browser_observe first`);
      }
      return call.wire('act', { ...args, state_id: stateId });
    },
    failed: (result) => actFailed(result['status'] as ActStatus),
    image: 'screenshot',
    // Before the fresh observation's tree, where a model reads them first.
    eventsInText: true,
    text: (result, _args, news, ids) => actText(result, news, ids),
  },
  {
    name: 'browser_wait',
    description: 'Wait without acting for text, a url glob or a selector in a state, then observe.',
    annotations: READ,
    methods: 'wait',
    onSession: true,
    async run(call) {
      const params = observationBudget(call, call.args, OBSERVATION_RESERVE);
      return isOutcome(params) ? params : call.wire('wait', params);
    },
    failed: (result) => result['status'] !== 'met',
    text: (result, _args, _news, ids) => waitText(result, ids),
  },
  {
    name: 'browser_tabs',
    description: "The session's tabs: list them, open one (new, with url and select; answers with its observation), select or close one " +
      "(target_id), or list a tab's frames (frames).",
    annotations: WRITE,
    methods: { list: 'tabs.list', new: 'tabs.new', select: 'tabs.select', close: 'tabs.close', frames: 'frames.list' },
    onSession: true,
    hidden: ['observe'],
    // A new tab is observed at once: one call opens a page and shows it (its state is then handed over).
    async run(call) {
      const mapped = actionCall(this, call.args);
      if (!('method' in mapped)) return mapped;
      if (mapped.method !== 'tabs.new') return call.wire(mapped.method, mapped.params);
      const params = observationBudget(call, { ...mapped.params, observe: true }, OBSERVATION_RESERVE);
      return isOutcome(params) ? params : call.wire('tabs.new', params);
    },
    text: (result, _args, _news, ids) => tabsText(result, ids),
  },
  {
    name: 'browser_screenshot',
    description: `A picture of the viewport, the whole page (full_page) or one element (ref), password fields masked. Scaled down to fit ` +
      `host image limits (${SCREENSHOT_MAX_SIDE} px long side, ${SCREENSHOT_MAX_PIXELS / 1e6} MP; the text gives the scale). ` +
      'To read or act on the page, browser_observe is cheaper and exact.',
    annotations: READ,
    methods: 'screenshot',
    onSession: true,
    // refs is taken but not listed: annotate alone serves a model, and tools/list stays small.
    hidden: ['max_side', 'max_pixels', 'refs'],
    async run(call) {
      return call.wire('screenshot', { max_side: SCREENSHOT_MAX_SIDE, max_pixels: SCREENSHOT_MAX_PIXELS, ...call.args });
    },
    image: 'result',
    text: (result, args) => screenshotText(result, args),
  },
  {
    name: 'browser_pdf',
    description: `Print a tab to a PDF file (password fields and secrets masked): embedded up to ${
      PDF_EMBED_MAX_BYTES / 1024 / 1024
    } MiB, else its path.`,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    methods: 'page.pdf',
    onSession: true,
    file: { mime: 'application/pdf', maxBytes: PDF_EMBED_MAX_BYTES },
    text: (result) => pdfText(result, PDF_EMBED_MAX_BYTES),
  },
  {
    name: 'browser_handle_dialog',
    description:
      'Accept or dismiss the alert, confirm or prompt a tab holds open (prompt_text answers a prompt). Works while an act waits on the dialog.',
    annotations: WRITE,
    methods: 'dialog.handle',
    onSession: true,
    text: (result) =>
      `${String(result['action'])} the ${String(result['dialog_type'])} dialog ${
        JSON.stringify(result['message'])
      }; observe to see the page now`,
  },
  {
    name: 'browser_file_upload',
    description:
      "Give files (paths under the server's --uploads folder) to the file chooser a click opened, or cancel the chooser (no paths).",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    methods: 'file_chooser.resolve',
    onSession: true,
    text: (
      result,
    ) => (result['cancelled']
      ? 'cancelled the file chooser'
      : `gave ${String(result['uploaded_count'])} file(s) to the chooser; observe to see the page now`),
  },
  {
    name: 'browser_cancel',
    description: "Stop the session's running call (an act waiting on a navigation or a condition); that act then reports outcome_unknown.",
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    methods: 'cancel',
    onSession: true,
    text: (result) => (result['status'] === 'idle' ? 'nothing was running' : 'cancellation requested; observe before acting again'),
  },
  {
    name: 'browser_session',
    description:
      'Create, list or close browser sessions: each has its own cookies, storage and tabs. Other tools use your default session ' +
      'unless given a session_id. trace_*: record calls, with screenshots, to a zip.',
    annotations: { ...WRITE, openWorldHint: false },
    methods: {
      create: 'session.create',
      list: 'session.list',
      close: 'session.close',
      trace_start: 'trace.start',
      trace_stop: 'trace.stop',
      trace_export: 'trace.export',
    },
    onSession: false,
    text: (result) => ('recording' in result || 'dropped_frames' in result ? traceText(result) : sessionsText(result)),
  },
  {
    name: 'browser_events',
    description:
      "The session's events after after_seq (dialogs, file choosers, downloads, popups, navigations, console, crashes), and its " +
      'downloads. Each tool result already lists the important ones since your previous call.',
    annotations: LOCAL_READ,
    // The events come from this principal's subscription (see principal.ts); the params are events.subscribe's.
    methods: 'events.subscribe',
    onSession: true,
    async run(call) {
      const invalid = call.check('events.subscribe', call.args);
      if (invalid) return { ok: false, error: invalid };
      const kinds = Array.isArray(call.args['kinds']) ? new Set(call.args['kinds'] as string[]) : undefined;
      const afterSeq = typeof call.args['after_seq'] === 'number' ? call.args['after_seq'] : 0;
      const downloads = await call.wire('downloads.list', call.sessionId ? { session_id: call.sessionId } : {});
      if (!downloads.ok) return downloads;
      const { events, lastSeq } = call.principal.events(call.sessionId, afterSeq);
      const listed = (downloads.result as { downloads: unknown[] }).downloads;
      const wanted = kinds ? events.filter((event) => kinds.has(event.kind)) : events;
      // As many events as fit (each is said twice: a line of text and its JSON), oldest first.
      let room = call.budget - OBSERVATION_RESERVE - 2 * utf8Length(JSON.stringify(listed));
      let fit = 0;
      while (fit < wanted.length && (room -= 2 * utf8Length(JSON.stringify(wanted[fit]))) >= 0) fit++;
      const fitting = wanted.slice(0, fit);
      const cut = fit < wanted.length;
      return {
        ok: true,
        result: {
          events: fitting,
          last_seq: lastSeq,
          downloads: listed,
          ...(cut ? { more_after_seq: fitting.at(-1)?.seq ?? afterSeq } : {}),
        },
      };
    },
    text: (result) =>
      [
        eventListText(result['events'] as WireEvent[], result['downloads'] as Obj[]),
        ...(typeof result['more_after_seq'] === 'number' ? [`more: browser_events {after_seq: ${result['more_after_seq']}}`] : []),
      ].join('\n'),
  },
];

// The one text block of each tool result: what a model reads. It is written from the wire result
// (already redacted as everywhere, PROTOCOL.md §11) and never repeats it as JSON: the structured
// result travels beside it as `structuredContent`.
import type { JsonRpcErrorObject } from '../rpc/errors.ts';
import type { IdsSaid } from './ids-said.ts';
import type { WireEvent } from './principal.ts';
import { blockerLine, type BlockerWords, type HitWords, hitWords } from '../wire/blocker-line.ts';

type Obj = Record<string, unknown>;

const str = (value: unknown): string => (typeof value === 'string' ? value : value === undefined ? '' : JSON.stringify(value));
const quote = (value: unknown): string => JSON.stringify(str(value));
/** Refs an annotated screenshot's text names as not drawn; structuredContent has them all. */
const NOT_DRAWN_LISTED = 20;

/**
 * An observation (observe's result, an act's fresh_state, wait's or a new tab's). Its ids are said
 * once per conversation (IdsSaid): the state_id always, the tab and the session only when they are
 * not the ones named before, and a frame only when it is not the tab's main frame (whose id is the
 * tab's).
 */
export function observationText(o: Obj, ids: IdsSaid): string {
  const named = ids.say(o['session_id'] as string | undefined, o['target_id'] as string | undefined);
  const line = [`state_id ${str(o['state_id'])}`];
  if (named.tab !== undefined) line.push(`tab ${named.tab}`);
  if (o['frame_id'] !== o['target_id']) line.push(`frame ${str(o['frame_id'])}`);
  if (named.session !== undefined) line.push(`session ${named.session}`);
  const lines = [line.join(' · ')];
  lines.push(`${quote(o['title'])} ${str(o['url'])}`);
  const readyState = (o['document'] as Obj | undefined)?.['ready_state'];
  if (readyState !== undefined && readyState !== 'complete') {
    lines.push(`The page is still loading (ready_state ${str(readyState)}): its scripts may not have attached their handlers yet.`);
  }
  const dialog = o['dialog'] as Obj | undefined;
  if (dialog) {
    lines.push(
      `A ${str(dialog['type'])} dialog is open: ${
        quote(dialog['message'])
      }. The page cannot be read or acted on until it is answered with browser_handle_dialog.`,
    );
  }
  for (const frame of (o['frames'] as Obj[] | undefined) ?? []) {
    if (frame['status'] === 'unavailable') lines.push(`frame ${str(frame['frame_id'])} unavailable: ${str(frame['reason'])}`);
    else if (frame['reason'] !== undefined) lines.push(`frame ${str(frame['frame_id'])}: ${str(frame['reason'])}`);
  }
  const markdown = o['markdown'];
  const matches = o['matches'] as unknown[] | undefined;
  if (o['truncated'] === true) {
    lines.push(
      matches
        ? `truncated: more elements match than the ${matches.length} shown; add words or a find_role`
        : typeof markdown === 'string'
        ? 'truncated: more elements than max_elements carry refs; past them links show their URL and controls are left out'
        : 'truncated: more elements than max_elements carry refs; raise max_elements or observe a root_ref subtree',
    );
  }
  // A find's tree is its matches, one a line with the landmarks and headings above each.
  if (matches) lines.push(`find: ${matches.length} ${matches.length === 1 ? 'match' : 'matches'} (the whole page was searched)`);
  const diff = o['diff'] as Obj | undefined;
  if (diff) {
    const count = (key: string) => ((diff[key] as unknown[] | undefined) ?? []).length;
    lines.push(
      `since ${str(diff['base'])}: ${count('added')} added, ${count('changed')} changed, ${count('removed')} removed${
        diff['text_changed'] ? ', text changed' : ''
      }`,
    );
  }
  // format "markdown": the markdown carries the refs in place of the tree.
  const tree = typeof markdown === 'string' ? markdown : str(o['tree']);
  if (tree) lines.push(tree);
  for (const blocker of (o['blockers'] as Obj[] | undefined) ?? []) {
    lines.push(blockerLine(blocker as unknown as BlockerWords, COVERED_REFS_SAID));
  }
  if (typeof o['text'] === 'string' && o['text']) lines.push('text:', o['text']);
  if (typeof o['next_cursor'] === 'string') {
    lines.push(`more: browser_observe {cursor: ${JSON.stringify(o['next_cursor'])}} reads on (this answer was cut at its byte budget)`);
  }
  return lines.join('\n');
}

/** How many covered refs a blocker's line names before it only counts the rest. */
const COVERED_REFS_SAID = 30;

const ACT_HINTS: Record<string, string> = {
  stale_observation: 'Nothing ran. Observe again (browser_observe) and act on the new state_id.',
  stale_reference: 'An element is gone or was replaced. Observe again and use the new ref.',
  condition_not_met: 'The actions ran but the condition does not hold; read the fresh observation below.',
  interrupted: 'A dialog, navigation or popup stopped the batch; `completed` lists what ran.',
  outcome_unknown: 'The action may or may not have happened: observe before acting again.',
  request_id_conflict: 'This request_id was used with other params: use a new one.',
};

const ERROR_HINTS: Record<string, string> = {
  click_intercepted: 'Something else is on top (see hit): close or dismiss it first, or act on it.',
  not_visible: 'The element has no visible point: scroll to it or open what contains it.',
  focus_mismatch: 'Focus went elsewhere when typing started: observe and try again.',
  modal_blocked: 'Answer the dialog with browser_handle_dialog, or the file chooser with browser_file_upload, first.',
  timeout: 'The time budget ran out; observe to see where things stand (timeout_ms raises the budget).',
  forbidden: "Not allowed for this client (another principal's session, or a path outside the --uploads root).",
  session_not_found: 'The session is closed or unknown: omit session_id to use your default session, or create one.',
  target_not_found: 'The tab is closed or unknown: list tabs with browser_tabs.',
  frame_not_found: 'The frame is gone or belongs to another tab: observe again.',
  no_modal: 'Nothing is pending.',
  last_tab: 'A session keeps at least one tab: close the session instead.',
  browser_unavailable: 'The browser could not be started or reached; see the message.',
  operation_cancelled: 'The call was cancelled.',
  invalid_params: 'Fix the arguments named above and call again.',
};

/** An act's result: status line, why it fell short, events, and the fresh observation's tree. */
/** wait's answer: whether the condition was met, then the observation taken after. */
export function waitText(result: Obj, ids: IdsSaid): string {
  const met = result['status'] === 'met';
  const head = met ? 'wait met' : 'wait condition_not_met: it did not hold within the budget; the page now:';
  return `${head}\n${observationText(result['observation'] as Obj, ids)}`;
}

export function actText(result: Obj, news: readonly WireEvent[], ids: IdsSaid): string {
  const status = str(result['status']);
  const completed = (result['completed'] as number[] | undefined) ?? [];
  // Named by position in words: "actions completed: 0" read as a count.
  const done = completed.length === 0
    ? 'no action completed'
    : `completed: action${completed.length > 1 ? 's' : ''} ${completed.map((index) => `#${index + 1}`).join(', ')}`;
  const lines = [
    `act ${status}: execution ${str(result['execution'])}, postcondition ${str(result['postcondition'])}, observation ${
      str(result['observation'])
    }; ${done}`,
  ];
  if (result['error_type'] || result['error_text']) lines.push(`${str(result['error_type']) || 'note'}: ${str(result['error_text'])}`);
  const hit = result['hit'] as HitWords | undefined;
  if (hit) lines.push(`in the way: ${hitWords(hit)}`);
  if (result['replayed'] === true) {
    lines.push('replayed: the kept result of an earlier call with this request_id (its state is no longer current).');
  }
  const hint = ACT_HINTS[status] ?? (status === 'action_failed' ? ERROR_HINTS[str(result['error_type'])] : undefined);
  if (hint) lines.push(hint);
  lines.push(...eventLines(news));
  const fresh = result['fresh_state'] as Obj | undefined;
  if (fresh) lines.push('', 'fresh observation (act on this state_id next):', observationText(fresh, ids));
  else if (result['observation'] === 'unavailable' && result['execution'] !== 'not_dispatched') {
    lines.push('No fresh observation: observe before acting again.');
  }
  return lines.join('\n');
}

/** A JSON-RPC error, as a tool error's text. */
export function errorText(error: JsonRpcErrorObject): string {
  const type = error.data.error_type;
  const lines = [`error ${type}: ${error.message}`];
  const issues = error.data['issues'] as Array<{ path: string; message: string }> | undefined;
  for (const issue of issues ?? []) lines.push(`- ${issue.path || '(params)'}: ${issue.message}`);
  const modal = error.data['modal'] as Obj | undefined;
  if (modal) lines.push(`pending: ${str(modal['type'])} ${quote(modal['message'])}`);
  if (typeof error.data['error_text'] === 'string') lines.push(error.data['error_text']);
  const hint = ERROR_HINTS[type];
  if (hint && type !== 'invalid_params') lines.push(hint);
  else if (hint && issues) lines.push(hint);
  return lines.join('\n');
}

/** The events a model needs to hear about between calls (navigation and console are left to browser_events). */
export function notable(events: readonly WireEvent[]): WireEvent[] {
  return events.filter((event) => eventLine(event) !== undefined);
}

/** The session's events since the previous tool call, one short line each (dialogs, downloads…). */
export function eventLines(events: readonly WireEvent[]): string[] {
  const lines = events.map(eventLine).filter((line): line is string => line !== undefined);
  return lines.length > 0 ? ['events since your previous call:', ...lines] : [];
}

/** One line for a notable event, undefined for the rest. */
function eventLine(event: WireEvent): string | undefined {
  const d = event.data;
  const tab = event.target_id ? ` (tab ${event.target_id})` : '';
  switch (event.kind) {
    case 'dialog':
      return d['handled']
        ? `- #${event.seq} ${str(d['type'])} dialog ${quote(d['message'])} was ${str(d['handled'])}${tab}`
        : `- #${event.seq} ${str(d['type'])} dialog open: ${quote(d['message'])}${tab}; answer it with browser_handle_dialog`;
    case 'file_chooser':
      return `- #${event.seq} file chooser (${str(d['mode'])}${
        d['ref'] ? `, ${str(d['ref'])}` : ''
      })${tab}; answer it with browser_file_upload`;
    case 'download':
      return d['state'] === 'in_progress'
        ? undefined
        : `- #${event.seq} download ${quote(d['suggested_filename'])} ${str(d['state'])}${d['path'] ? ` at ${str(d['path'])}` : ''}`;
    case 'popup':
      return `- #${event.seq} popup tab ${str(d['target_id'])} opened by ${str(d['opener_id'])}: ${str(d['url'])}`;
    case 'tab_closed':
      return `- #${event.seq} tab ${str(d['target_id'])} closed`;
    case 'crash':
      return `- #${event.seq} ${str(d['scope'])} crash${tab}: ${str(d['hint'])}`;
    case 'session_closed':
      return `- #${event.seq} session ${event.session_id} closed (${str(d['reason'])})`;
    default:
      return undefined;
  }
}

/** Every kind, for browser_events. */
export function eventListText(events: readonly WireEvent[], downloads: readonly Obj[]): string {
  const lines = events.length > 0
    ? events.map((event) => `#${event.seq} ${event.kind}${event.target_id ? ` tab ${event.target_id}` : ''} ${summary(event.data)}`)
    : ['no events'];
  if (downloads.length > 0) {
    lines.push('downloads:');
    for (const d of downloads) {
      lines.push(
        `- ${quote(d['suggested_filename'])} ${str(d['state'])} ${str(d['received_bytes'])}/${str(d['total_bytes'])} bytes${
          d['path'] ? ` at ${str(d['path'])}` : ''
        }`,
      );
    }
  }
  return lines.join('\n');
}

/** `key: value` pairs of the scalar fields, for the small results (tabs.select, dialog.handle…). */
export function summary(result: Obj): string {
  return Object.entries(result)
    .filter(([, value]) => value === null || typeof value !== 'object')
    .map(([key, value]) => `${key}: ${typeof value === 'string' ? value : JSON.stringify(value)}`)
    .join(', ');
}

export function tabsText(result: Obj, ids: IdsSaid): string {
  const tabs = result['tabs'] as Obj[] | undefined;
  if (tabs) {
    return tabs
      .map((tab) =>
        `${str(tab['target_id'])}${tab['selected'] ? ' (selected)' : ''} ${quote(tab['title'])} ${str(tab['url'])}${
          tab['opener_id'] ? ` opened by ${str(tab['opener_id'])}` : ''
        }`
      )
      .join('\n');
  }
  const frames = result['frames'] as Obj[] | undefined;
  if (frames) {
    return frames
      .map((f) =>
        `${str(f['frame_id'])}${f['parent_frame_id'] ? ` in ${str(f['parent_frame_id'])}` : ' (main)'}${
          f['name'] ? ` ${quote(f['name'])}` : ''
        } ${str(f['url'])}${f['cross_process'] ? ' (cross-process)' : ''}`
      )
      .join('\n');
  }
  // tabs.new with observe: the new tab's first observation follows the line saying it opened.
  const { observation, ...opened } = result;
  if (observation) {
    // The observation names the new tab: said once.
    return `opened a tab${opened['error_text'] ? ` (${str(opened['error_text'])})` : ''}\n${observationText(observation as Obj, ids)}`;
  }
  return summary(result);
}

export function sessionsText(result: Obj): string {
  const sessions = result['sessions'] as Obj[] | undefined;
  if (!sessions) return summary(result);
  if (sessions.length === 0) return 'no sessions';
  return sessions
    .map((s) => {
      const on = s['endpoint'] === undefined ? '' : `, endpoint: ${str(s['endpoint'])}`;
      return `${str(s['session_id'])} ${quote(s['name'])} tabs: ${str(s['tabs'])}, clients: ${str(s['clients'])}${on}`;
    })
    .join('\n');
}

/** trace.start, trace.stop and trace.export, in words (PROTOCOL.md §16). */
export function traceText(result: Obj): string {
  if (result['path'] !== undefined) {
    const dropped = Number(result['dropped_frames'] ?? 0);
    return `trace written to ${str(result['path'])} (${str(result['size'])} bytes): ${str(result['steps'])} steps, ` +
      `${str(result['frames'])} screenshots${dropped > 0 ? ` (${dropped} older ones dropped)` : ''}; open it in the inspector`;
  }
  return result['recording'] === true
    ? 'recording: every call on the session is a step of its trace'
    : `recording stopped after ${str(result['steps'])} steps`;
}

export function screenshotText(result: Obj, params: Obj): string {
  const what = params['ref'] ? `element ${str(params['ref'])}` : params['full_page'] ? 'whole page' : 'viewport';
  const scale = typeof result['scale'] === 'number' ? result['scale'] : undefined;
  const size = `${str(result['width'])}×${str(result['height'])} ${str(result['mime'])} of the ${what}`;
  const text = scale
    ? `${size}, scaled down by ${scale} to fit host image limits: divide image px by ${scale} for CSS px (act x,y are CSS px)`
    : `${size}; image px = CSS px (act x,y)`;
  return result['state_id'] === undefined ? text : `${text}\n${annotationText(result, params)}`;
}

/** How many refs an annotated screenshot shows, of which state, and those it could not draw. */
function annotationText(result: Obj, params: Obj): string {
  const missing = (result['not_drawn'] as string[] | undefined) ?? [];
  const asked = params['refs'] as string[] | undefined;
  const what = asked ? `${new Set(asked).size - missing.length} of the ${new Set(asked).size} refs asked` : `the refs`;
  const drawn = `drawn: ${what} of state ${str(result['state_id'])}, each box labelled with its ref at its top-left`;
  if (missing.length === 0) return drawn;
  const shown = missing.slice(0, NOT_DRAWN_LISTED).join(' ');
  const more = missing.length > NOT_DRAWN_LISTED ? ` and ${missing.length - NOT_DRAWN_LISTED} more` : '';
  return `${drawn}; not drawn (gone, hidden or outside the image): ${shown}${more}`;
}

/** A printed PDF: its pages, size and path, and whether its bytes came along (tools.ts `file`). */
export function pdfText(result: Obj, maxEmbedded: number): string {
  const size = Number(result['size']);
  const pages = `${str(result['pages'])} page${result['pages'] === 1 ? '' : 's'}`;
  const kb = `${Math.max(1, Math.round(size / 1024))} KB`;
  const where = `saved at ${str(result['path'])}`;
  return result['resource_content'] !== undefined
    ? `PDF of ${pages}, ${kb}, ${where}; embedded as a resource (content[${str(result['resource_content'])}])`
    : `PDF of ${pages}, ${kb}, ${where}; larger than ${maxEmbedded / 1024 / 1024} MiB, so not embedded: open the file`;
}

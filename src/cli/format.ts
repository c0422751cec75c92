// The CLI's human output: a page as a header line and its tree, an act as one status line, an
// event as one line. `--json` prints the wire results instead (commands.ts).
import type { ActEvent, ActResult, Observation, SessionEvent, TabSummary } from '../client/wire.ts';
import { blockerLine, hitWords } from '../wire/blocker-line.ts';
import { frameNotes } from '../wire/frame-notes.ts';

export function pageHeader(observation: Observation): string {
  const parts = [`page: ${JSON.stringify(observation.title)} ${observation.url}`, `tab ${observation.target_id}`];
  if (observation.truncated) parts.push(`truncated at ${observation.elements.length} refs (--max N for more)`);
  return parts.join(' · ');
}

export function pageText(observation: Observation): string {
  const lines = [pageHeader(observation)];
  if (observation.dialog) {
    lines.push(`dialog: ${observation.dialog.type} ${JSON.stringify(observation.dialog.message)} (pagewire dialog accept|dismiss)`);
  }
  for (const note of frameNotes(observation.frames)) lines.push(note.text);
  if (observation.tree !== '') lines.push(observation.tree.replace(/\n$/, ''));
  if (observation.markdown !== undefined) lines.push(observation.markdown);
  for (const blocker of observation.blockers ?? []) lines.push(blockerLine(blocker));
  if (observation.text !== undefined) lines.push('--- text ---', observation.text);
  if (observation.next_cursor) lines.push(`more: pagewire observe --cursor ${observation.next_cursor}`);
  return lines.join('\n');
}

/** `verified: click @3 → "Title" url` or `action_failed (click_intercepted): …`. */
export function actLine(what: string, result: ActResult): string {
  const fresh = result.fresh_state;
  if (result.status === 'completed' || result.status === 'verified') {
    const where = fresh ? ` → ${JSON.stringify(fresh.title)} ${fresh.url}` : ' (no fresh observation: observe before acting again)';
    const notes = [result.replayed ? 'replayed' : '', result.error_text ?? ''].filter(Boolean);
    return `${result.status}: ${what}${where}${notes.length ? ` (${notes.join('; ')})` : ''}`;
  }
  const why = result.error_type ? ` (${result.error_type})` : '';
  const hit = result.hit ? `; in the way: ${hitWords(result.hit)}` : '';
  return `${result.status}${why}: ${what}: ${result.error_text ?? 'no reason given'}${hit}`;
}

type AnyEvent = SessionEvent | ActEvent;

function detailOf(event: AnyEvent): string {
  switch (event.kind) {
    case 'console':
      return `${event.data.level} ${JSON.stringify(event.data.text)}`;
    case 'dialog':
      return `${event.data.type} ${JSON.stringify(event.data.message)}${event.data.handled ? ` ${event.data.handled}` : ''}`;
    case 'navigation':
      return `${event.data.url}${event.data.same_document ? ' (same document)' : ''}`;
    case 'download':
      return `${event.data.suggested_filename} ${event.data.state}${event.data.path ? ` ${event.data.path}` : ''}`;
    case 'popup':
      return `${event.data.target_id} ${event.data.url}`;
    case 'act':
      return `${event.data.actions.join(', ')} → ${event.data.status}${event.data.error_type ? ` (${event.data.error_type})` : ''}`;
    default:
      return JSON.stringify(event.data);
  }
}

export function eventLine(event: AnyEvent): string {
  const dropped = 'dropped' in event && event.dropped ? ` (${event.dropped} dropped before it)` : '';
  return `#${event.seq} ${event.kind}${event.target_id ? ` [${event.target_id}]` : ''} ${detailOf(event)}${dropped}`;
}

export function tabsLines(tabs: readonly TabSummary[]): string[] {
  return tabs.map((tab) =>
    `${tab.selected ? '*' : ' '} ${tab.target_id}  ${JSON.stringify(tab.title)}  ${tab.url}${
      tab.opener_id ? `  (opened by ${tab.opener_id})` : ''
    }`
  );
}

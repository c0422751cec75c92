// The session events of PROTOCOL.md §9: their kinds (src/wire/events.ts) and the record
// every kind shares, typed by kind so a source cannot publish data its kind does not have.
import type { EventData, EventKind, SessionEvent } from '../wire/index.ts';
import { EVENT_KINDS } from '../wire/events.ts';

export { EVENT_KINDS, type EventData, type EventKind, type SessionEvent };

/** What a source hands to `EventLog.publish`: the log adds seq, time and session_id. */
export type EventInit = {
  [K in EventKind]: { kind: K; target_id?: string | undefined; frame_id?: string | undefined; data: EventData[K] };
}[EventKind];

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}

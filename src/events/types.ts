// The session events of PROTOCOL.md §9: their kinds and the record every kind shares.

/** Every event kind, in the order PROTOCOL.md §9 lists them. */
export const EVENT_KINDS = [
  'dialog',
  'file_chooser',
  'download',
  'popup',
  'tab_closed',
  'navigation',
  'console',
  'crash',
  'session_closed',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

/** One event of one pagewire session, as retained for replay and sent (plus subscription_id). */
export interface SessionEvent {
  /** 1 for the session's first event, +1 for each one after it. */
  readonly seq: number;
  readonly kind: EventKind;
  readonly session_id: string;
  readonly target_id?: string;
  readonly frame_id?: string;
  /** Epoch milliseconds at publish. */
  readonly time: number;
  readonly data: Record<string, unknown>;
}

/** What a source hands to `EventLog.publish`: the log adds seq, time and session_id. */
export interface EventInit {
  kind: EventKind;
  target_id?: string | undefined;
  frame_id?: string | undefined;
  data: Record<string, unknown>;
}

export function isEventKind(value: unknown): value is EventKind {
  return typeof value === 'string' && (EVENT_KINDS as readonly string[]).includes(value);
}

// The wire shapes the SDK sends and receives (docs/PROTOCOL.md), as types only: nothing here
// exists at run time, so the browser build carries none of it. They are written after the
// contract and the method handlers until src/rpc/wire/ exports the result types generated from
// its schemas; this file is then the one place that re-exports them.

export type EventKind =
  | 'dialog'
  | 'file_chooser'
  | 'download'
  | 'popup'
  | 'tab_closed'
  | 'navigation'
  | 'console'
  | 'crash'
  | 'session_closed';

export interface Element {
  ref: string;
  role: string;
  name: string;
  frame_id: string;
  visible: boolean;
  in_viewport: boolean;
  checked?: boolean | 'mixed';
  selected?: boolean;
  expanded?: boolean;
  disabled?: boolean;
  focused?: boolean;
  required?: boolean;
  has_value?: boolean;
  level?: number;
  href?: string;
}

export interface FrameStatus {
  frame_id: string;
  url: string;
  status: 'observed' | 'unavailable';
  reason?: string;
}

export interface Observation {
  state_id: string;
  session_id: string;
  target_id: string;
  frame_id: string;
  document: { frame_id: string; loader_id: string; url: string };
  url: string;
  title: string;
  tree: string;
  elements: Element[];
  text?: string;
  frames: FrameStatus[];
  truncated: boolean;
  dialog?: { type: string; message: string; default_prompt?: string };
  diff?: { base: string; added: Element[]; changed: Element[]; removed: string[]; text_changed: boolean };
}

export type Modifier = 'Alt' | 'Control' | 'ControlOrMeta' | 'Meta' | 'Shift';

export type Action =
  | { action: 'click'; ref?: string; x?: number; y?: number; button?: 'left' | 'right' | 'middle'; click_count?: number; modifiers?: Modifier[] }
  | { action: 'hover'; ref: string }
  | { action: 'type'; ref: string; text: string; clear_first?: boolean; submit?: boolean }
  | { action: 'fill'; ref: string; text: string }
  | { action: 'check'; ref: string; checked: boolean | string }
  | { action: 'select'; ref: string; value?: string; values?: string[]; label?: string }
  | { action: 'press'; key: string; ref?: string }
  | { action: 'scroll'; delta_x?: number; delta_y?: number; ref?: string }
  | { action: 'drag'; ref: string; to_ref: string }
  | { action: 'upload'; ref: string; paths: string[] }
  | { action: 'navigate'; url: string }
  | { action: 'back' }
  | { action: 'forward' }
  | { action: 'reload' };

export type WaitState = 'visible' | 'hidden' | 'attached' | 'detached';
export type WaitFor = { text: string; state?: WaitState } | { url: string; state?: WaitState } | { selector: string; state?: WaitState };

/** The params of `act` besides the action(s). */
export interface ActParams {
  session_id?: string;
  state_id: string;
  target_id?: string;
  expect?: { selector: string; text: string };
  wait_for?: WaitFor;
  timeout_ms?: number;
  request_id?: string;
  screenshot?: 'never' | 'on_error' | 'always';
}

export type ActStatus =
  | 'completed'
  | 'verified'
  | 'condition_not_met'
  | 'interrupted'
  | 'stale_observation'
  | 'stale_reference'
  | 'action_failed'
  | 'request_id_conflict'
  | 'outcome_unknown';

export interface ActEvent {
  kind: EventKind;
  seq: number;
  target_id?: string;
  frame_id?: string;
  time: number;
  data: Record<string, unknown>;
}

export interface ActResult {
  status: ActStatus;
  execution: 'not_dispatched' | 'dispatched_unknown' | 'completed';
  observation: 'captured' | 'unavailable';
  postcondition: 'not_requested' | 'unknown' | 'unmet' | 'met';
  completed: number[];
  events: ActEvent[];
  fresh_state?: Observation;
  error_type?: string;
  error_text?: string;
  hit?: { role: string; name: string; tag: string };
  replayed?: true;
  screenshot?: { mime: string; data: string };
}

export interface ObserveParams {
  session_id?: string;
  target_id?: string;
  frame_id?: string;
  since?: string;
  max_elements?: number;
  include_text?: boolean;
  root_ref?: string;
}

export interface SessionCreateParams {
  name?: string;
  viewport?: { width: number; height: number };
  dialogs?: 'hold' | 'accept' | 'dismiss';
  user_agent?: string;
}

export interface SessionInfo {
  session_id: string;
  name: string;
  tabs: number;
  created_at: number;
  clients: number;
}

export interface TabInfo {
  target_id: string;
  url: string;
  title: string;
  selected: boolean;
  opener_id?: string;
}

export interface FrameInfo {
  frame_id: string;
  parent_frame_id: string | null;
  url: string;
  name: string;
  cross_process: boolean;
}

export interface ScreenshotParams {
  target_id?: string;
  full_page?: boolean;
  ref?: string;
  state_id?: string;
  format?: 'png' | 'jpeg';
  quality?: number;
}

export interface Screenshot {
  mime: string;
  data: string;
  width: number;
  height: number;
}

export interface DialogResult {
  action: 'accepted' | 'dismissed';
  dialog_type: string;
  message: string;
}

export type FileChooserResult = { uploaded_count: number } | { cancelled: true };

export interface DownloadInfo {
  guid: string;
  url: string;
  suggested_filename: string;
  state: 'started' | 'in_progress' | 'completed' | 'canceled';
  received_bytes: number;
  total_bytes: number;
  path?: string;
}

/** One event as delivered (`event` notification params, without its subscription_id). */
export interface SessionEvent {
  seq: number;
  kind: EventKind;
  session_id: string;
  target_id?: string;
  frame_id?: string;
  time: number;
  data: Record<string, unknown>;
  /** Events the server dropped for this connection right before this one (§9 backpressure). */
  dropped?: number;
}

export interface SubscribeResult {
  subscription_id: string;
  /** The session's newest seq when the subscription began: what a resumed stream replays after. */
  last_seq?: number;
}

export interface ServerInfo {
  name: string;
  version: string;
  protocol_version: string;
  runtime: string;
  browser?: { product: string; protocol_version: string };
  limits: Record<string, number>;
  counts?: Record<string, number>;
}

/** `data` of a JSON-RPC error: `error_type` is always there (§3). */
export interface ErrorData {
  error_type: string;
  [key: string]: unknown;
}

// The wire types the SDK speaks, from the protocol's own schemas (src/wire, `pagewire/protocol`).
// Types only: nothing of them exists at run time, so the browser build carries no schema.
import type {
  ActParams as WireActParams,
  DialogHandleResult,
  EventKind,
  EventOf,
  EventsSubscribeResult,
  FileChooserResolveResult,
  PagePdfResult,
  ScreenshotResult,
  TraceExportResult,
} from '../wire/index.ts';

export type {
  ActEvent,
  ActResult,
  ActStatus,
  Download,
  Element,
  ErrorData,
  EventData,
  EventKind,
  EventsPollParams,
  EventsPollResult,
  FrameSummary,
  NetworkEntry,
  NetworkListParams,
  NetworkListResult,
  Observation,
  ObserveParams,
  PagePdfParams,
  PdfPaper,
  ScreencastFrame,
  ScreencastStartParams,
  ScreencastStartResult,
  ScreenshotParams,
  ServerInfoResult as ServerInfo,
  SessionCreateParams,
  SessionCreateResult,
  SessionSummary,
  StorageState,
  TabSummary,
  TraceEvent,
  TraceHeader,
  TraceStep,
  WaitFor,
  WaitParams,
  WaitResult,
} from '../wire/index.ts';

/** One action as a client sends it (`check` also takes the word forms of `checked`). */
export type Action = NonNullable<WireActParams['actions']>[number];

/** The params of `act` besides its state and its action(s). */
export type ActParams = Pick<WireActParams, 'target_id' | 'expect' | 'wait_for' | 'timeout_ms' | 'request_id' | 'screenshot'>;

/** One event as a stream delivers it: the notification without its subscription id. */
export type SessionEvent = { [K in EventKind]: Omit<EventOf<K>, 'subscription_id'> }[EventKind];

export type SubscribeResult = EventsSubscribeResult;
export type Screenshot = ScreenshotResult;
/** A printed PDF: `path` on the server's machine (its downloads folder), `size` in bytes, `pages`. */
export type Pdf = PagePdfResult;
/** An exported trace: `path` on the server's machine (its downloads folder), `size` in bytes, what it holds. */
export type TraceFile = TraceExportResult;
export type DialogResult = DialogHandleResult;
export type FileChooserResult = FileChooserResolveResult;

// The pagewire wire protocol as zod schemas and TypeScript types: what clients import as
// `pagewire/protocol`. It imports zod and nothing of the server.
import type { z } from 'zod';
import type { actEvent, actionSchema, actResult, expectation, hitDescription, waitFor } from './act.ts';
import type { errorData, paramIssue, rpcError } from './errors.ts';
import type { downloadData, EVENT_DATA, EventKind, eventNotification } from './events.ts';
import type { ParamsOf, ResultOf } from './methods.ts';
import type { screencastEventData } from './screencast.ts';
import type { element, findMatch, observation, observationDiff, observedFrame, pendingDialog } from './observation.ts';
import type {
  openRpcContentDescriptor,
  openRpcDocument,
  openRpcMethod,
  serverCounts,
  serverDiagnostics,
  serverLimits,
  tabReadCounts,
} from './server.ts';
import type { networkEntry } from './events.ts';
import type { sessionSummary, storageCookie, storageOrigin, storageState } from './sessions.ts';
import type { domainPolicySummary } from './server.ts';
import type { frameSummary, tabSummary } from './tabs.ts';
import type { traceEvent, traceHeader, traceStep } from './traces.ts';

export * from './act.ts';
export * from './errors.ts';
export * from './events.ts';
export * from './fields.ts';
export * from './method.ts';
export * from './methods.ts';
export * from './modal.ts';
export * from './navigations.ts';
export * from './network.ts';
export * from './observation.ts';
export * from './observe-bounds.ts';
export * from './pdf.ts';
export * from './screencast.ts';
export * from './screenshot.ts';
export * from './server.ts';
export * from './sessions.ts';
export * from './tabs.ts';
export * from './traces.ts';
export * from './wait.ts';

export type Element = z.infer<typeof element>;
export type Observation = z.infer<typeof observation>;
export type ObservedFrame = z.infer<typeof observedFrame>;
export type ObservationDiff = z.infer<typeof observationDiff>;
export type PendingDialog = z.infer<typeof pendingDialog>;
export type FindMatch = z.infer<typeof findMatch>;

/** One action as the server runs it (`check`'s word forms of `checked` are already booleans). */
export type Action = z.infer<typeof actionSchema>;
export type ActionName = Action['action'];
export type WaitFor = z.infer<typeof waitFor>;
export type Expectation = z.infer<typeof expectation>;
export type ActResult = z.infer<typeof actResult>;
export type ActEvent = z.infer<typeof actEvent>;
export type Hit = z.infer<typeof hitDescription>;
export type ActStatus = ActResult['status'];
export type Execution = ActResult['execution'];
export type Postcondition = ActResult['postcondition'];
export type ActErrorType = NonNullable<ActResult['error_type']>;

export type EventData = { [K in EventKind]: z.infer<(typeof EVENT_DATA)[K]> };
export type EventNotification = z.infer<typeof eventNotification>;
/** The notification of one kind, e.g. `EventOf<'dialog'>`. */
export type EventOf<K extends EventKind> = Extract<SessionEventNotification, { kind: K }>;
/** A session event's notification (every kind but `screencast`, which is not a session event). */
export type SessionEventNotification = Exclude<EventNotification, { kind: 'screencast' }>;
export type ScreencastNotification = Extract<EventNotification, { kind: 'screencast' }>;
export type ScreencastFrame = z.infer<typeof screencastEventData>;
export type Download = z.infer<typeof downloadData>;
export type NetworkEntry = z.infer<typeof networkEntry>;
export type StorageState = z.infer<typeof storageState>;
export type StorageCookie = z.infer<typeof storageCookie>;
export type StorageOrigin = z.infer<typeof storageOrigin>;
export type DomainPolicySummary = z.infer<typeof domainPolicySummary>;

export type ErrorData = z.infer<typeof errorData>;
export type ParamIssue = z.infer<typeof paramIssue>;
export type RpcError = z.infer<typeof rpcError>;

export type SessionSummary = z.infer<typeof sessionSummary>;
export type TraceHeader = z.infer<typeof traceHeader>;
export type TraceStep = z.infer<typeof traceStep>;
export type TraceEvent = z.infer<typeof traceEvent>;
export type TabSummary = z.infer<typeof tabSummary>;
export type FrameSummary = z.infer<typeof frameSummary>;
export type ServerLimits = z.infer<typeof serverLimits>;
export type ServerCounts = z.infer<typeof serverCounts>;
export type ServerDiagnostics = z.infer<typeof serverDiagnostics>;
export type TabReadCounts = z.infer<typeof tabReadCounts>;
export type OpenRpcDocument = z.infer<typeof openRpcDocument>;
export type OpenRpcMethod = z.infer<typeof openRpcMethod>;
export type OpenRpcContentDescriptor = z.infer<typeof openRpcContentDescriptor>;

export type SessionCreateParams = ParamsOf<'session.create'>;
export type SessionCreateResult = ResultOf<'session.create'>;
export type SessionListParams = ParamsOf<'session.list'>;
export type SessionListResult = ResultOf<'session.list'>;
export type SessionCloseParams = ParamsOf<'session.close'>;
export type SessionCloseResult = ResultOf<'session.close'>;
export type SessionStorageStateParams = ParamsOf<'session.storage_state'>;
export type SessionStorageStateResult = ResultOf<'session.storage_state'>;
export type TabsListParams = ParamsOf<'tabs.list'>;
export type TabsListResult = ResultOf<'tabs.list'>;
export type TabsNewParams = ParamsOf<'tabs.new'>;
export type TabsNewResult = ResultOf<'tabs.new'>;
export type TabsSelectParams = ParamsOf<'tabs.select'>;
export type TabsSelectResult = ResultOf<'tabs.select'>;
export type TabsCloseParams = ParamsOf<'tabs.close'>;
export type TabsCloseResult = ResultOf<'tabs.close'>;
export type FramesListParams = ParamsOf<'frames.list'>;
export type FramesListResult = ResultOf<'frames.list'>;
export type FramesSelectParams = ParamsOf<'frames.select'>;
export type FramesSelectResult = ResultOf<'frames.select'>;
export type ObserveParams = ParamsOf<'observe'>;
export type ObserveResult = ResultOf<'observe'>;
export type ScreencastStartParams = ParamsOf<'screencast.start'>;
export type ScreencastStartResult = ResultOf<'screencast.start'>;
export type ScreencastStopParams = ParamsOf<'screencast.stop'>;
export type ScreencastStopResult = ResultOf<'screencast.stop'>;
export type ScreenshotParams = ParamsOf<'screenshot'>;
export type ScreenshotResult = ResultOf<'screenshot'>;
export type PagePdfParams = ParamsOf<'page.pdf'>;
export type PagePdfResult = ResultOf<'page.pdf'>;
export type EventsSubscribeParams = ParamsOf<'events.subscribe'>;
export type EventsSubscribeResult = ResultOf<'events.subscribe'>;
export type EventsUnsubscribeParams = ParamsOf<'events.unsubscribe'>;
export type EventsUnsubscribeResult = ResultOf<'events.unsubscribe'>;
export type EventsPollParams = ParamsOf<'events.poll'>;
export type EventsPollResult = ResultOf<'events.poll'>;
export type ActParams = ParamsOf<'act'>;
export type WaitParams = ParamsOf<'wait'>;
export type WaitResult = ResultOf<'wait'>;
export type CancelParams = ParamsOf<'cancel'>;
export type CancelResult = ResultOf<'cancel'>;
export type DialogHandleParams = ParamsOf<'dialog.handle'>;
export type DialogHandleResult = ResultOf<'dialog.handle'>;
export type FileChooserResolveParams = ParamsOf<'file_chooser.resolve'>;
export type FileChooserResolveResult = ResultOf<'file_chooser.resolve'>;
export type DownloadsListParams = ParamsOf<'downloads.list'>;
export type DownloadsListResult = ResultOf<'downloads.list'>;
export type NetworkListParams = ParamsOf<'network.list'>;
export type NetworkListResult = ResultOf<'network.list'>;
export type ServerInfoParams = ParamsOf<'server.info'>;
export type ServerInfoResult = ResultOf<'server.info'>;
export type RpcDiscoverParams = ParamsOf<'rpc.discover'>;
export type RpcDiscoverResult = ResultOf<'rpc.discover'>;
export type TraceStartParams = ParamsOf<'trace.start'>;
export type TraceStartResult = ResultOf<'trace.start'>;
export type TraceStopParams = ParamsOf<'trace.stop'>;
export type TraceStopResult = ResultOf<'trace.stop'>;
export type TraceExportParams = ParamsOf<'trace.export'>;
export type TraceExportResult = ResultOf<'trace.export'>;
export type CdpSendParams = ParamsOf<'cdp.send'>;
export type CdpSendResult = ResultOf<'cdp.send'>;

/** An event as its session published it: a notification without the subscription's fields. */
export type SessionEvent<K extends EventKind = EventKind> = { [P in K]: Omit<EventOf<P>, 'subscription_id' | 'dropped'> }[K];

// The session events of PROTOCOL.md §9: their kinds, each kind's `data`, the `event`
// notification, and events.subscribe, events.unsubscribe and downloads.list.
import { z } from 'zod';
import { idString, sessionIdField } from './fields.ts';
import { wireMethod } from './method.ts';
import { screencastEventData } from './screencast.ts';
import { ACT_ERROR_TYPES, ACT_STATUSES, EXECUTIONS, OBSERVATION_STATES, POSTCONDITIONS } from './act-words.ts';

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
  'act',
  'network',
] as const;

export type EventKind = (typeof EVENT_KINDS)[number];

export const DIALOG_TYPES = ['alert', 'confirm', 'prompt', 'beforeunload'] as const;

export const dialogEventData = z
  .object({
    type: z.enum(DIALOG_TYPES),
    message: z.string(),
    default_prompt: z.string().optional(),
    url: z.string(),
    handled: z.enum(['accepted', 'dismissed']).optional().describe("Set when the session's `dialogs` policy answered it at once"),
  })
  .meta({ id: 'DialogEventData' });

export const fileChooserEventData = z
  .object({
    mode: z.enum(['select_single', 'select_multiple']),
    ref: z.string().optional().describe("The file input's ref in the tab's current state, when it has one"),
  })
  .meta({ id: 'FileChooserEventData' });

/** A download event's data, and one item of downloads.list. */
export const downloadData = z
  .object({
    guid: z.string(),
    url: z.string(),
    suggested_filename: z.string(),
    state: z.enum(['started', 'in_progress', 'completed', 'canceled']),
    received_bytes: z.number(),
    total_bytes: z.number().describe('0 while the size is unknown'),
    path: z.string().optional().describe('The finished file (completed only)'),
  })
  .meta({ id: 'Download' });

export const popupEventData = z.object({ target_id: z.string(), opener_id: z.string(), url: z.string() }).meta({ id: 'PopupEventData' });

export const tabClosedEventData = z.object({ target_id: z.string() }).meta({ id: 'TabClosedEventData' });

export const navigationEventData = z
  .object({ frame_id: z.string(), loader_id: z.string().optional(), url: z.string(), same_document: z.boolean() })
  .meta({ id: 'NavigationEventData' });

export const consoleEventData = z.object({ level: z.string(), text: z.string() }).meta({ id: 'ConsoleEventData' });

export const crashEventData = z
  .object({
    scope: z.enum(['renderer', 'browser']),
    target_id: z.string().optional(),
    status: z.string().optional().describe("renderer: Chromium's termination status (`crashed`, `killed`, `oom`…)"),
    hint: z.string(),
  })
  .meta({ id: 'CrashEventData' });

export const sessionClosedEventData = z.object({ reason: z.string() }).meta({ id: 'SessionClosedEventData' });

/** An act that answered, whichever client or door ran it: what a person watching the agent needs. */
export const actEventData = z
  .object({
    actions: z.array(z.string()).describe('The action names, in order'),
    state_id: z.string().describe('The state the act was made on'),
    status: z.enum(ACT_STATUSES),
    execution: z.enum(EXECUTIONS),
    observation: z.enum(OBSERVATION_STATES),
    postcondition: z.enum(POSTCONDITIONS),
    completed: z.array(z.number().int()),
    error_type: z.enum(ACT_ERROR_TYPES).optional(),
    error_text: z.string().optional(),
    fresh_state_id: z.string().optional().describe('The state of the fresh observation, when one was captured'),
    request_id: z.string().optional(),
  })
  .meta({ id: 'ActEventData' });
/** One request of the network log (network.list, and the data of a `network` event). */
export const networkEntry = z
  .object({
    seq: z.number().int().min(1).describe("+1 for each entry of the session's network log"),
    target_id: z.string().optional().describe('The tab (absent for a request of a service worker, a shared worker or the WebSocket proxy)'),
    frame_id: z.string().optional().describe('The frame that made the request'),
    method: z.string(),
    url: z.string().describe('Redacted (no query, fragment or userinfo); a proxy tunnel is host:port'),
    resource_type: z.string().describe('document, stylesheet, image, script, xhr, fetch, websocket, other…'),
    state: z.enum(['pending', 'finished', 'failed']),
    status: z.number().int().optional().describe('The HTTP status of the response (101 for a WebSocket)'),
    bytes: z.number().min(0).optional().describe('Bytes received over the network, headers included'),
    duration_ms: z.number().min(0).optional(),
    failure: z.string().optional().describe('Why it failed: net::ERR_… as Chromium says it, or "blocked"'),
    blocked_by: z.string().optional().describe('The domain rule that refused it'),
    time: z.number().describe('Epoch ms when it started'),
  })
  .meta({ id: 'NetworkEntry' });

/** Each kind's `data`. */
export const EVENT_DATA = {
  dialog: dialogEventData,
  file_chooser: fileChooserEventData,
  download: downloadData,
  popup: popupEventData,
  tab_closed: tabClosedEventData,
  navigation: navigationEventData,
  console: consoleEventData,
  crash: crashEventData,
  session_closed: sessionClosedEventData,
  act: actEventData,
  network: networkEntry,
} as const satisfies Record<EventKind, z.ZodType>;

/** One event shape: `kind` and its `data`, next to the fields of `shape`. */
export function eventOf<K extends EventKind, S extends z.ZodRawShape>(kind: K, shape: S) {
  return z.object({ ...shape, kind: z.literal(kind), data: EVENT_DATA[kind] });
}

/** What every event says besides its kind and data. */
export const eventFields = {
  seq: z.number().int().min(1).describe('+1 for each event of the session'),
  target_id: z.string().optional(),
  frame_id: z.string().optional(),
  time: z.number().describe('Epoch ms at publish'),
};

const notificationFields = {
  subscription_id: z.string(),
  ...eventFields,
  dropped: z.number().int().min(1).optional().describe('Events dropped for this connection (backpressure) since the last delivered one'),
  session_id: z.string(),
};

/** The params of an `event` notification. */
export const eventNotification = z
  .discriminatedUnion('kind', [
    eventOf('dialog', notificationFields),
    eventOf('file_chooser', notificationFields),
    eventOf('download', notificationFields),
    eventOf('popup', notificationFields),
    eventOf('tab_closed', notificationFields),
    eventOf('navigation', notificationFields),
    eventOf('console', notificationFields),
    eventOf('crash', notificationFields),
    eventOf('session_closed', notificationFields),
    eventOf('act', notificationFields),
    // Not a session event: only the connection that called screencast.start receives it (§13).
    z.object({ ...notificationFields, kind: z.literal('screencast'), data: screencastEventData }),
    eventOf('network', notificationFields),
  ])
  .meta({ id: 'EventNotification' });

/** The JSON-RPC method of event notifications. */
export const EVENT_NOTIFICATION = 'event';

const kindsField = z
  .array(z.enum(EVENT_KINDS))
  .min(1)
  .refine((kinds) => new Set(kinds).size === kinds.length, 'kinds must not repeat')
  // The refinement is invisible to JSON Schema; say it there too.
  .meta({ uniqueItems: true })
  .optional()
  .describe('Event kinds to deliver; omitted: every kind but network (asked for by name only)');

/** Kinds an events.subscribe without `kinds` delivers: `network` comes only when named. */
export const DEFAULT_EVENT_KINDS = EVENT_KINDS.filter((kind) => kind !== 'network');

export const eventsSubscribe = wireMethod({
  name: 'events.subscribe',
  summary: "Deliver the session's events to this connection as `event` notifications.",
  params: z
    .object({
      session_id: sessionIdField,
      kinds: kindsField,
      after_seq: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Replay the retained events after this seq (0: all retained) before live ones'),
    })
    .strict(),
  result: z.object({
    subscription_id: z.string(),
    last_seq: z
      .number()
      .int()
      .min(0)
      .describe("The session's newest seq when the subscription began: the replay ends there, live events follow; resume with after_seq"),
  }),
});

export const eventsUnsubscribe = wireMethod({
  name: 'events.unsubscribe',
  summary: "End one of this connection's subscriptions.",
  params: z.object({ subscription_id: idString }).strict(),
  result: z.object({ unsubscribed: z.literal(true) }),
});

export const downloadsList = wireMethod({
  name: 'downloads.list',
  summary: "The session's downloads (the most recent 200, oldest first): state, bytes and, once completed, the file's path.",
  params: z.object({ session_id: sessionIdField }).strict(),
  result: z.object({ downloads: z.array(downloadData) }),
});

const sessionEventFields = { ...eventFields, session_id: z.string() };

/** One retained session event as events.poll answers it: a notification's params without subscription_id. */
export const sessionEvent = z
  .discriminatedUnion('kind', [
    eventOf('dialog', sessionEventFields),
    eventOf('file_chooser', sessionEventFields),
    eventOf('download', sessionEventFields),
    eventOf('popup', sessionEventFields),
    eventOf('tab_closed', sessionEventFields),
    eventOf('navigation', sessionEventFields),
    eventOf('console', sessionEventFields),
    eventOf('crash', sessionEventFields),
    eventOf('session_closed', sessionEventFields),
    eventOf('act', sessionEventFields),
    eventOf('network', sessionEventFields),
  ])
  .meta({ id: 'SessionEvent' });

/** Longest wait of one events.poll. */
export const POLL_WAIT_MS_MAX = 60_000;

export const eventsPoll = wireMethod({
  name: 'events.poll',
  summary:
    "The session's retained events after after_seq, waiting up to wait_ms for the first one (a long poll, for clients without a socket).",
  params: z
    .object({
      session_id: sessionIdField,
      after_seq: z
        .number()
        .int()
        .min(0)
        .optional()
        .describe('Events with a higher seq (0: every retained one); omitted: only events published after the call began'),
      kinds: kindsField,
      wait_ms: z
        .number()
        .int()
        .min(0)
        .max(POLL_WAIT_MS_MAX)
        .optional()
        .describe('How long to wait for a first event when none is there yet (default 0: answer at once)'),
    })
    .strict(),
  result: z.object({
    events: z.array(sessionEvent).describe('Oldest first'),
    last_seq: z
      .number()
      .int()
      .min(0)
      .describe("The session's newest seq when the call answered (other kinds included): the next poll's after_seq"),
    evicted: z.number().int().min(0).describe('Events after after_seq that were no longer retained'),
  }),
});

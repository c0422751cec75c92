// server.info, rpc.discover and cdp.send (PROTOCOL.md §10).
import { z } from 'zod';
import { noParams, sessionIdField, targetIdField } from './fields.ts';
import { wireMethod } from './method.ts';

/** Limits in force. A refused call's `data.limit` is one of these keys and `data.max` its value. */
export const serverLimits = z
  .object({
    max_sessions: z.number().int(),
    tabs_per_session: z.number().int(),
    pending_requests_per_connection: z.number().int(),
    subscriptions_per_connection: z.number().int(),
    states_kept_per_tab: z.number().int().describe('Observations kept per tab (older ones are evicted; acting on one says stale_state)'),
    states_kept_for_closed_tabs: z
      .number()
      .int()
      .describe('Current states of closed tabs kept per session (acting on one says target_changed)'),
    states_retained_per_session: z.number().int().describe('All observations one session keeps; past it the oldest are evicted'),
    actions_per_act: z.number().int(),
    timeout_ms_max: z.number().int(),
    timeout_ms_default: z.number().int(),
    max_elements_max: z.number().int(),
    max_elements_default: z.number().int(),
    request_ids_kept: z.number().int(),
    events_retained: z.number().int(),
    inbound_message_bytes: z.number().int(),
    idle_timeout_s: z.number().int(),
    network_entries_per_tab: z.number().int().describe(
      'Network log entries kept per tab (and for the workers of a session); the oldest go first',
    ),
  })
  .meta({ id: 'ServerLimits' });

/** The server's domain policy (PROTOCOL.md §13): the patterns as given. */
export const domainPolicySummary = z
  .object({ allow: z.array(z.string()), block: z.array(z.string()), block_private_network: z.boolean() })
  .meta({ id: 'DomainPolicy' });

const count = z.number().int().min(0);

/** How frames were read (observation.md says what each counts). */
const frameReadCounts = {
  frame_reads_full: count,
  frame_reads_patched: count,
  frame_reads_reused: count,
  snapshots_full: count,
  snapshots_light: count,
  snapshots_kept: count,
  changes_prefetched: count,
  ax_parts_prefetched: count,
};

/** One tab's frame reads since it opened. */
export const tabReadCounts = z
  .object({ target_id: z.string(), ...frameReadCounts })
  .meta({ id: 'TabReadCounts' });

/** Counters for watching a long-running server; the optional ones appear when their source exists. */
export const serverCounts = z
  .object({
    sessions: count,
    browser_launches: count,
    tabs: count.optional().describe('While a browser runs'),
    cdp_sessions: count.optional().describe('While a browser runs'),
    cdp_listeners: count.optional().describe('While a browser runs'),
    pending_cdp_calls: count.optional().describe('While a browser runs'),
    states: count,
    pending_requests: count.optional().describe('RPC requests in flight over every connection'),
    subscriptions: count.optional(),
    queued_events: count.optional(),
    queued_event_bytes: count.optional(),
    dropped_events: count.optional(),
    rss_bytes: count.optional(),
    heap_used_bytes: count.optional(),
  })
  .meta({ id: 'ServerCounts' });

/**
 * The engine's own read counters, for tests and benchmarks: diagnostic and unstable (PROTOCOL.md
 * §10), so they sit apart from `counts` and may change with the engine without a protocol version.
 */
export const serverDiagnostics = z
  .object({
    ...frameReadCounts,
    tab_reads: z
      .array(tabReadCounts)
      .describe("How each open tab of the caller's own sessions was read (the fields above, per tab)"),
  })
  .meta({ id: 'ServerDiagnostics', description: 'Diagnostic and unstable: how the engine read frames; not part of the contract' });

/** One endpoint of the pool (PROTOCOL.md §1 "Browsers from endpoints"). */
export const endpointSummary = z
  .object({
    id: z.string(),
    url: z.string().describe('Without userinfo, query or fragment'),
    state: z.enum(['idle', 'connecting', 'live', 'lost']),
    sessions: count.describe('Sessions on it, of every principal'),
    error: z.string().optional().describe('Why its last connection failed or ended'),
  })
  .meta({ id: 'EndpointSummary' });

export const serverInfo = wireMethod({
  name: 'server.info',
  summary: 'Name, versions, runtime, the browser if one runs, and the limits in force.',
  params: noParams,
  result: z.object({
    name: z.literal('pagewire'),
    version: z.string(),
    protocol_version: z.string(),
    runtime: z.string().describe('e.g. "node v20.19.0" or "deno 2.1.4"'),
    browser: z
      .object({ product: z.string(), protocol_version: z.string() })
      .optional()
      .describe('While a browser runs: its product and CDP version'),
    limits: serverLimits,
    counts: serverCounts,
    diagnostics: serverDiagnostics,
    secrets: z
      .array(z.object({ name: z.string(), origins: z.array(z.string()).describe('Where it may be typed; empty: any origin') }))
      .describe('The secrets act may type by name (never their values)'),
    domain_policy: domainPolicySummary,
    endpoints: z.array(endpointSummary).optional().describe('When browsers come from endpoints (--connect): each, its state and sessions'),
  }),
});

export const OPENRPC_VERSION = '1.2.6';

/** A JSON Schema (draft-07). */
const jsonSchema = z.record(z.string(), z.unknown());

export const openRpcContentDescriptor = z.object({
  name: z.string(),
  required: z.boolean(),
  schema: jsonSchema,
  description: z.string().optional(),
});

export const openRpcMethod = z.object({
  name: z.string(),
  summary: z.string(),
  paramStructure: z.literal('by-name'),
  params: z.array(openRpcContentDescriptor),
  result: z.object({ name: z.string(), schema: jsonSchema }),
  'x-params-schema': jsonSchema
    .optional()
    .describe(
      'The whole params schema, when it is not a plain object (a union, say): the per-name list cannot say "exactly one of these shapes"',
    ),
});

export const openRpcDocument = z
  .object({
    openrpc: z.literal(OPENRPC_VERSION),
    info: z.object({ title: z.string(), version: z.string(), description: z.string().optional() }),
    methods: z.array(openRpcMethod),
    components: z.object({
      schemas: z.record(z.string(), jsonSchema),
      errors: z.record(z.string(), z.object({ code: z.number().int(), message: z.string(), data: z.object({ error_type: z.string() }) })),
    }),
  })
  .meta({ id: 'OpenRpcDocument' });

export const rpcDiscover = wireMethod({
  name: 'rpc.discover',
  summary: 'An OpenRPC document of every method, generated from the schemas that validate its params and describe its result.',
  params: noParams,
  result: openRpcDocument,
});

export const cdpSend = wireMethod({
  name: 'cdp.send',
  summary: 'Send a raw CDP command to a tab (only with --allow-raw-cdp).',
  params: z
    .object({
      session_id: sessionIdField,
      target_id: targetIdField,
      method: z.string().regex(/^[A-Z][A-Za-z]*\.[a-z][A-Za-z]*$/, 'must look like Domain.method'),
      params: z.record(z.string(), z.unknown()).optional(),
    })
    .strict(),
  result: z.record(z.string(), z.unknown()).describe("The CDP command's result, as Chromium answered it"),
});

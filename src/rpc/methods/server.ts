// server.info, rpc.discover and the optional raw CDP passthrough (PROTOCOL.md §10).
import { z } from 'zod';
import { isCdpError } from '../../cdp/errors.ts';
import { ServerError } from '../../errors.ts';
import type { BrowserHost } from '../../sessions/browser-host.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { PROTOCOL_VERSION, VERSION } from '../../version.ts';
import { frameReadCounts } from '../../observe/observer.ts';
import { defineMethod, type AnyMethodDef } from '../define.ts';
import { buildOpenRpcDocument } from '../discover.ts';
import { onSession, sessionIdField, targetIdField } from './common.ts';

/** Limits in force. A refused call's `data.limit` is one of these keys and `data.max` its value. */
export interface ServerLimits {
  max_sessions: number;
  tabs_per_session: number;
  pending_requests_per_connection: number;
  subscriptions_per_connection: number;
  /** Observations kept per tab (older ones are evicted; acting on one says stale_state). */
  states_kept_per_tab: number;
  /** Current states of closed tabs kept per session (acting on one says target_changed). */
  states_kept_for_closed_tabs: number;
  /** All observations one session keeps; past it the oldest are evicted. */
  states_retained_per_session: number;
  actions_per_act: number;
  timeout_ms_max: number;
  timeout_ms_default: number;
  max_elements_max: number;
  max_elements_default: number;
  request_ids_kept: number;
  events_retained: number;
  inbound_message_bytes: number;
  idle_timeout_s: number;
}

export interface ServerMethodDeps {
  registry: SessionRegistry;
  host: BrowserHost;
  runtime: string;
  limits: ServerLimits;
  allowRawCdp: boolean;
  /** All methods of the server, for rpc.discover (resolved lazily: this list is part of it). */
  methods: () => AnyMethodDef[];
  /** Subscription and outbox counters, for watching a long-running server. */
  eventStats?: () => { subscriptions: number; queued: number; queuedBytes: number; droppedTotal: number };
  /** RPC requests in flight over every connection (server.info itself included). */
  pendingRequests?: () => number;
  /** The server process's memory (the RPC layer may not import node:process). */
  memory?: () => { rss: number; heapUsed: number };
}

function snakeCase(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).map(([key, value]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]));
}

function eventCounts(stats: { subscriptions: number; queued: number; queuedBytes: number; droppedTotal: number }): Record<string, number> {
  return {
    subscriptions: stats.subscriptions,
    queued_events: stats.queued,
    queued_event_bytes: stats.queuedBytes,
    dropped_events: stats.droppedTotal,
  };
}

function memoryCounts(memory: { rss: number; heapUsed: number }): Record<string, number> {
  return { rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed };
}

export function serverMethods(deps: ServerMethodDeps): AnyMethodDef[] {
  let discoverDocument: ReturnType<typeof buildOpenRpcDocument> | undefined;
  const methods: AnyMethodDef[] = [
    defineMethod({
      name: 'server.info',
      summary: 'Name, versions, runtime, the browser if one runs, and the limits in force.',
      params: z.object({}).strict(),
      handler: async () => {
        const browser = deps.host.current;
        return {
          name: 'pagewire',
          version: VERSION,
          protocol_version: PROTOCOL_VERSION,
          runtime: deps.runtime,
          ...(browser ? { browser: { product: browser.version.product, protocol_version: browser.version.protocolVersion } } : {}),
          limits: deps.limits,
          counts: {
            sessions: deps.registry.size,
            browser_launches: deps.host.launches,
            ...(browser ? snakeCase(browser.counts()) : {}),
            states: deps.registry.all().reduce((sum, session) => sum + session.states.size, 0),
            ...(deps.pendingRequests ? { pending_requests: deps.pendingRequests() } : {}),
            ...(deps.eventStats ? eventCounts(deps.eventStats()) : {}),
            ...(deps.memory ? memoryCounts(deps.memory()) : {}),
            ...snakeCase(frameReadCounts()),
          },
        };
      },
    }),
    defineMethod({
      name: 'rpc.discover',
      summary: 'An OpenRPC document of every method, generated from the schemas that validate params.',
      params: z.object({}).strict(),
      // The method table never changes after start: build the document once, not per call.
      handler: async () => (discoverDocument ??= buildOpenRpcDocument(deps.methods(), { version: VERSION })),
    }),
  ];
  if (deps.allowRawCdp) {
    methods.push(
      defineMethod({
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
        handler: (params, call) =>
          onSession(deps.registry, call, params.session_id, async (session) => {
            const tab = session.resolveTab(params.target_id);
            const dialog = tab.dialogs.pending;
            if (dialog) {
              // Renderer-bound commands hang while a dialog is open (CDP-NOTES §7).
              throw new ServerError('modal_blocked', 'a dialog is open: handle it with dialog.handle first', {
                details: { modal: { type: dialog.type, message: dialog.message } },
              });
            }
            try {
              return await tab.session.sendRaw(params.method, params.params ?? {});
            } catch (error) {
              if (isCdpError(error) && error.isTargetGone) {
                throw new ServerError('target_not_found', `tab ${tab.targetId} went away`, { cause: error });
              }
              if (isCdpError(error) && error.kind === 'protocol') {
                throw new ServerError('invalid_params', error.message, { details: { cdp_code: error.code }, cause: error });
              }
              throw error;
            }
          }),
      }),
    );
  }
  return methods;
}

// server.info, rpc.discover and the optional raw CDP passthrough (PROTOCOL.md §10).
import { isCdpError } from '../../cdp/errors.ts';
import { ServerError } from '../../errors.ts';
import type { BrowserHost } from '../../sessions/browser-host.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { PROTOCOL_VERSION, VERSION } from '../../version.ts';
import type { FrameReadCounts } from '../../observe/tab-reader.ts';
import { type AnyMethodDef, defineMethod } from '../define.ts';
import { buildOpenRpcDocument, type OpenRpcDocument } from '../discover.ts';
import type { ServerCounts, ServerLimits } from '../../wire/index.ts';
import { cdpSend, rpcDiscover, serverInfo } from '../../wire/server.ts';
import { sessionMethod } from './common.ts';

export type { ServerLimits };

export interface ServerMethodDeps {
  registry: SessionRegistry;
  host: BrowserHost;
  runtime: string;
  limits: ServerLimits;
  allowRawCdp: boolean;
  /** The secrets act may type, by name and origins (never values). */
  secrets?: Array<{ name: string; origins: string[] }>;
  /** The server's domain policy, as given. */
  domainPolicy?: { allow: string[]; block: string[]; block_private_network: boolean };
  /** All methods of the server, for rpc.discover (resolved lazily: this list is part of it). */
  methods: () => AnyMethodDef[];
  /** Subscription and outbox counters, for watching a long-running server. */
  eventStats?: () => { subscriptions: number; queued: number; queuedBytes: number; droppedTotal: number };
  /** RPC requests in flight over every connection (server.info itself included). */
  pendingRequests?: () => number;
  /** The server process's memory (the RPC layer may not import node:process). */
  memory?: () => { rss: number; heapUsed: number };
}

type BrowserCounts = ReturnType<NonNullable<BrowserHost['current']>['counts']>;

/** Summed over every browser sessions run in (the launched one, or each live endpoint's). */
function browserCounts(all: BrowserCounts[]): Pick<ServerCounts, 'tabs' | 'cdp_sessions' | 'cdp_listeners' | 'pending_cdp_calls'> {
  const sum = (pick: (counts: BrowserCounts) => number) => all.reduce((total, counts) => total + pick(counts), 0);
  return {
    tabs: sum((counts) => counts.tabs),
    cdp_sessions: sum((counts) => counts.cdpSessions),
    cdp_listeners: sum((counts) => counts.cdpListeners),
    pending_cdp_calls: sum((counts) => counts.pendingCdpCalls),
  };
}

function eventCounts(stats: { subscriptions: number; queued: number; queuedBytes: number; droppedTotal: number }) {
  return {
    subscriptions: stats.subscriptions,
    queued_events: stats.queued,
    queued_event_bytes: stats.queuedBytes,
    dropped_events: stats.droppedTotal,
  };
}

function memoryCounts(memory: { rss: number; heapUsed: number }) {
  return { rss_bytes: memory.rss, heap_used_bytes: memory.heapUsed };
}

function frameReadWireCounts(counts: FrameReadCounts) {
  return {
    frame_reads_full: counts.frameReadsFull,
    frame_reads_patched: counts.frameReadsPatched,
    frame_reads_reused: counts.frameReadsReused,
    snapshots_full: counts.snapshotsFull,
    snapshots_light: counts.snapshotsLight,
    snapshots_kept: counts.snapshotsKept,
    // The wire keeps its published names for what the server now calls reading ahead.
    changes_prefetched: counts.changesReadAhead,
    ax_parts_prefetched: counts.axPartsReadAhead,
  };
}

export function serverMethods(deps: ServerMethodDeps): AnyMethodDef[] {
  let discoverDocument: OpenRpcDocument | undefined;
  const methods: AnyMethodDef[] = [
    defineMethod({
      ...serverInfo,
      handler: async (_params, call) => {
        const browser = deps.host.current;
        const endpoints = deps.host.endpoints();
        const running = deps.host.browsers();
        const own = deps.registry.all().filter((session) => session.principalId === call.principal.id);
        return {
          name: 'pagewire' as const,
          version: VERSION,
          protocol_version: PROTOCOL_VERSION,
          runtime: deps.runtime,
          ...(browser ? { browser: { product: browser.version.product, protocol_version: browser.version.protocolVersion } } : {}),
          limits: deps.limits,
          counts: {
            sessions: deps.registry.size,
            browser_launches: deps.host.launches,
            ...(running.length > 0 ? browserCounts(running.map((each) => each.counts())) : {}),
            states: deps.registry.all().reduce((sum, session) => sum + session.states.size, 0),
            ...(deps.pendingRequests ? { pending_requests: deps.pendingRequests() } : {}),
            ...(deps.eventStats ? eventCounts(deps.eventStats()) : {}),
            ...(deps.memory ? memoryCounts(deps.memory()) : {}),
          },
          diagnostics: {
            ...frameReadWireCounts(deps.registry.readCounts.snapshot()),
            // Only the caller's own: another principal's tabs are not its business.
            tab_reads: own.flatMap((session) =>
              session.tabReadCounts().map(({ targetId, counts }) => ({ target_id: targetId, ...frameReadWireCounts(counts) }))
            ),
          },
          secrets: deps.secrets ?? [],
          domain_policy: deps.domainPolicy ?? { allow: [], block: [], block_private_network: false },
          ...(endpoints ? { endpoints } : {}),
        };
      },
    }),
    defineMethod({
      ...rpcDiscover,
      // The method table never changes after start: build the document once, not per call.
      handler: async () => (discoverDocument ??= buildOpenRpcDocument(deps.methods(), { version: VERSION })),
    }),
  ];
  if (deps.allowRawCdp) {
    methods.push(
      sessionMethod(deps.registry, {
        ...cdpSend,
        run: async (session, params) => {
          const tab = session.resolveTab(params.target_id);
          const dialog = tab.dialogs.pending;
          if (dialog) {
            // Renderer-bound commands hang while a dialog is open (CDP-NOTES §7).
            throw new ServerError('modal_blocked', 'a dialog is open: handle it with dialog.handle first', {
              details: { modal: { type: dialog.type, message: dialog.message } },
            });
          }
          try {
            // CDP answers every command with an object.
            return (await tab.session.sendRaw(params.method, params.params ?? {})) as Record<string, unknown>;
          } catch (error) {
            if (isCdpError(error) && error.isTargetGone) {
              throw new ServerError('target_not_found', `tab ${tab.targetId} went away`, { cause: error });
            }
            if (isCdpError(error) && error.kind === 'protocol') {
              throw new ServerError('invalid_params', error.message, { details: { cdp_code: error.code }, cause: error });
            }
            throw error;
          }
        },
      }),
    );
  }
  return methods;
}

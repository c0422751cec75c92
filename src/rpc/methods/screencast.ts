// screencast.start and screencast.stop (PROTOCOL.md §13). A screencast belongs to the connection
// that started it: it is one watcher of the tab's single capture (Chromium streams a page once),
// and ends with screencast.stop, its connection, its session or its tab. The capture itself
// runs only while the tab has a watcher.
import type { Tab } from '../../browser/tab.ts';
import { DEFAULT_SCREENCAST, type ScreencastFrame, type ScreencastStats, TabScreencast } from '../../capture/screencast.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import { randomId } from '../../util/ids.ts';
import type { RpcConnection } from '../context.ts';
import type { AnyMethodDef } from '../define.ts';
import { EVENT_NOTIFICATION } from '../../wire/events.ts';
import { screencastStart, screencastStop } from '../../wire/screencast.ts';
import { requireLastingConnection, sessionMethod } from './common.ts';

/** A frame is offered to a connection only while its socket holds less than this (bytes). */
export const SCREENCAST_HIGH_WATER = 256 * 1024;

interface Watch {
  readonly subscriptionId: string;
  readonly tab: Tab;
  readonly dispose: () => void;
  /** Frames written to the socket / skipped because it was backed up. */
  delivered: number;
  skipped: number;
  /** The seq of the last frame sent: frames of one screencast count from 1. */
  seq: number;
}

export interface WatchStats {
  readonly delivered: number;
  readonly skipped: number;
  readonly capture: ScreencastStats;
}

/** Every tab's capture and every connection's watch of one; closed with the server. */
export class Screencasts {
  readonly #captures = new Map<Tab, TabScreencast>();
  /** connection id → target id → its watch. */
  readonly #watches = new Map<string, Map<string, Watch>>();

  get captures(): number {
    return this.#captures.size;
  }

  async start(init: {
    connection: RpcConnection;
    session: Session;
    tab: Tab;
    settings: { maxFps: number; quality: number; maxWidth: number };
  }): Promise<string> {
    const { connection, session, tab } = init;
    const existing = this.#watches.get(connection.id)?.get(tab.targetId);
    const subscriptionId = existing?.subscriptionId ?? randomId('sc_');
    const watch: Watch = existing ?? {
      subscriptionId,
      tab,
      delivered: 0,
      skipped: 0,
      seq: 0,
      dispose: this.#onDisposal(connection, session, tab),
    };
    let byTarget = this.#watches.get(connection.id);
    if (!byTarget) this.#watches.set(connection.id, byTarget = new Map());
    byTarget.set(tab.targetId, watch);
    let capture = this.#captures.get(tab);
    if (!capture || capture.ended) {
      const created: TabScreencast = new TabScreencast({
        tab,
        settings: init.settings,
        onEnd: () => {
          if (this.#captures.get(tab) === created) this.#captures.delete(tab);
          // A tab that went away takes its watches with it.
          for (const [connectionId, targets] of this.#watches) {
            const gone = targets.get(tab.targetId);
            if (gone?.tab === tab) this.#forget(connectionId, tab.targetId);
          }
        },
      });
      capture = created;
      this.#captures.set(tab, capture);
    }
    await capture.watch(
      connection.id,
      {
        offer: (frame: ScreencastFrame) => {
          if (connection.signal.aborted) return true;
          if (connection.bufferedAmount() >= SCREENCAST_HIGH_WATER) {
            watch.skipped++;
            return false;
          }
          connection.notify(EVENT_NOTIFICATION, {
            subscription_id: subscriptionId,
            seq: ++watch.seq,
            kind: 'screencast',
            session_id: session.id,
            target_id: tab.targetId,
            time: Date.now(),
            data: frame,
          });
          watch.delivered++;
          return true;
        },
      },
      { ...DEFAULT_SCREENCAST, ...init.settings },
    );
    return subscriptionId;
  }

  async stop(connectionId: string, tab: Tab): Promise<boolean> {
    const watch = this.#watches.get(connectionId)?.get(tab.targetId);
    if (!watch || watch.tab !== tab) return false;
    this.#forget(connectionId, tab.targetId);
    await this.#captures.get(tab)?.unwatch(connectionId);
    return true;
  }

  /** A connection's watch of a tab (tests and diagnostics). */
  statsOf(connectionId: string, targetId: string): WatchStats | undefined {
    const watch = this.#watches.get(connectionId)?.get(targetId);
    const capture = watch && this.#captures.get(watch.tab);
    if (!watch || !capture) return undefined;
    return { delivered: watch.delivered, skipped: watch.skipped, capture: capture.stats };
  }

  async close(): Promise<void> {
    const captures = [...this.#captures.values()];
    for (const connectionId of [...this.#watches.keys()]) {
      for (const targetId of [...(this.#watches.get(connectionId)?.keys() ?? [])]) this.#forget(connectionId, targetId);
    }
    await Promise.allSettled(captures.map((capture) => capture.end()));
  }

  /** Ends the watch when its connection closes or its session does; returns the undo. */
  #onDisposal(connection: RpcConnection, session: Session, tab: Tab): () => void {
    const end = () => void this.stop(connection.id, tab);
    connection.signal.addEventListener('abort', end, { once: true });
    session.closeSignal.addEventListener('abort', end, { once: true });
    return () => {
      connection.signal.removeEventListener('abort', end);
      session.closeSignal.removeEventListener('abort', end);
    };
  }

  #forget(connectionId: string, targetId: string): void {
    const targets = this.#watches.get(connectionId);
    const watch = targets?.get(targetId);
    if (!targets || !watch) return;
    watch.dispose();
    targets.delete(targetId);
    if (targets.size === 0) this.#watches.delete(connectionId);
  }
}

export function screencastMethods(registry: SessionRegistry, screencasts: Screencasts): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...screencastStart,
      recorded: false,
      // A viewer must not wait behind the agent's running act (it wants to watch it).
      bypassQueue: true,
      run: async (session, params, { call }) => {
        requireLastingConnection(call, 'screencast.start');
        const tab = session.resolveTab(params.target_id);
        const subscriptionId = await screencasts.start({
          connection: call.connection,
          session,
          tab,
          settings: {
            maxFps: params.max_fps ?? DEFAULT_SCREENCAST.maxFps,
            quality: params.quality ?? DEFAULT_SCREENCAST.quality,
            maxWidth: params.max_width ?? DEFAULT_SCREENCAST.maxWidth,
          },
        });
        return { subscription_id: subscriptionId, target_id: tab.targetId };
      },
    }),
    sessionMethod(registry, {
      ...screencastStop,
      recorded: false,
      bypassQueue: true,
      run: async (session, params, { call }) => ({
        stopped: await screencasts.stop(call.connection.id, session.resolveTab(params.target_id)),
      }),
    }),
  ];
}

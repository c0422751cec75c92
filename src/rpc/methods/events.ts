// events.subscribe, events.unsubscribe and events.poll (PROTOCOL.md §9). Delivery, replay and
// backpressure live in src/events/; this is the wire surface.
import type { SubscriptionHub } from '../../events/subscriptions.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { type AnyMethodDef, defineMethod } from '../define.ts';
import { DEFAULT_EVENT_KINDS, eventsPoll, eventsSubscribe, eventsUnsubscribe } from '../../wire/events.ts';
import { requireLastingConnection, sessionMethod } from './common.ts';

export function eventMethods(registry: SessionRegistry, hub: SubscriptionHub): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...eventsSubscribe,
      recorded: false,
      // Subscribing must not wait behind a running act (whose dialog it may be meant to see).
      bypassQueue: true,
      run: async (session, params, { call }) => {
        requireLastingConnection(call, 'events.subscribe');
        // `network` comes only when named: it can be hundreds of events a page, and it turns the log on.
        const kinds = params.kinds ?? DEFAULT_EVENT_KINDS;
        const network = kinds.includes('network') ? session.wantNetworkEvents() : undefined;
        try {
          return hub.subscribe(call.connection, session, { kinds, afterSeq: params.after_seq, ...(network ? { onEnd: network } : {}) });
        } catch (error) {
          network?.();
          throw error;
        }
      },
    }),
    defineMethod({
      ...eventsUnsubscribe,
      handler: async (params, call) => {
        hub.unsubscribe(call.connection, params.subscription_id);
        return { unsubscribed: true as const };
      },
    }),
    sessionMethod(registry, {
      ...eventsPoll,
      recorded: false,
      // A long poll waits beside the queue, like a subscription (for the dialog a running act waits on).
      bypassQueue: true,
      run: async (session, params, { call }) => {
        const kinds = new Set(params.kinds ?? DEFAULT_EVENT_KINDS);
        if (kinds.has('network')) session.keepNetworkEvents();
        const log = session.events;
        // Omitted: from now on. Read before any wait, so an event published meanwhile is after it.
        const after = params.after_seq ?? log.lastSeq;
        const read = () => {
          const { events, evicted } = log.since(after);
          return { events: events.filter((event) => kinds.has(event.kind)), last_seq: log.lastSeq, evicted };
        };
        const now = read();
        if (now.events.length > 0 || !params.wait_ms) return now;
        // The caller going away (its HTTP request or socket closing) ends the wait as well.
        const gone = call.signal ? AbortSignal.any([call.signal, call.connection.signal]) : call.connection.signal;
        await log.waitFor((event) => kinds.has(event.kind), { timeoutMs: params.wait_ms, signal: gone });
        return read();
      },
    }),
  ];
}

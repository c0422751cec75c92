// events.subscribe and events.unsubscribe (PROTOCOL.md §9). Delivery, replay and backpressure
// live in src/events/; this is the wire surface.
import type { SubscriptionHub } from '../../events/subscriptions.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { type AnyMethodDef, defineMethod } from '../define.ts';
import { DEFAULT_EVENT_KINDS, eventsSubscribe, eventsUnsubscribe } from '../wire/events.ts';
import { sessionMethod } from './common.ts';

export function eventMethods(registry: SessionRegistry, hub: SubscriptionHub): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...eventsSubscribe,
      // Subscribing must not wait behind a running act (whose dialog it may be meant to see).
      bypassQueue: true,
      run: async (session, params, { call }) => {
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
  ];
}

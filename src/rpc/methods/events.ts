// events.subscribe and events.unsubscribe (PROTOCOL.md §9). Delivery, replay and backpressure
// live in src/events/; this is the wire surface.
import { z } from 'zod';
import type { SubscriptionHub } from '../../events/subscriptions.ts';
import { EVENT_KINDS } from '../../events/types.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { defineMethod, type AnyMethodDef } from '../define.ts';
import { idString, onSession, sessionIdField } from './common.ts';

const kindsField = z
  .array(z.enum(EVENT_KINDS))
  .min(1)
  .refine((kinds) => new Set(kinds).size === kinds.length, 'kinds must not repeat')
  // The refinement is invisible to JSON Schema; say it there too.
  .meta({ uniqueItems: true })
  .optional()
  .describe('Event kinds to deliver; omitted: all');

const subscribeParams = z
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
  .strict();

const unsubscribeParams = z.object({ subscription_id: idString }).strict();

export function eventMethods(registry: SessionRegistry, hub: SubscriptionHub): AnyMethodDef[] {
  return [
    defineMethod({
      name: 'events.subscribe',
      summary: "Deliver the session's events to this connection as `event` notifications.",
      params: subscribeParams,
      handler: (params, call) =>
        onSession(
          registry,
          call,
          params.session_id,
          async (session) => hub.subscribe(call.connection, session, { kinds: params.kinds, afterSeq: params.after_seq }),
          // Subscribing must not wait behind a running act (whose dialog it may be meant to see).
          { bypassQueue: true },
        ),
    }),
    defineMethod({
      name: 'events.unsubscribe',
      summary: 'End one of this connection\'s subscriptions.',
      params: unsubscribeParams,
      handler: async (params, call) => {
        hub.unsubscribe(call.connection, params.subscription_id);
        return { unsubscribed: true };
      },
    }),
  ];
}

// The wire's types for tests and benches: the protocol's own (src/wire, what clients import
// as `pagewire/protocol`), never a copy, and the few readers of observations and events they share.
import type { ActResult, Element, EventKind, EventNotification, EventOf, Observation } from '../../src/wire/index.ts';

export type * from '../../src/wire/index.ts';

/** The element named `name` (with `role`, when given), if the observation has one. */
export function elementNamed(observation: Observation, name: string, role?: string): Element | undefined {
  return observation.elements.find((element) => element.name === name && (role === undefined || element.role === role));
}

/** The ref of the element named `name` (with `role`, when given); throws with the tree when there is none. */
export function ref(observation: Observation, name: string, role?: string): string {
  const element = elementNamed(observation, name, role);
  if (!element) throw new Error(`no element named ${JSON.stringify(name)}${role ? ` (${role})` : ''} in\n${observation.tree}`);
  return element.ref;
}

interface Notification {
  method: string;
  params: unknown;
}

interface NotificationSource {
  readonly notifications: readonly Notification[];
  waitForNotification(predicate: (n: Notification) => boolean): Promise<Notification>;
}

/** The event a notification carries (the test client has checked it against its schema), if any. */
export function eventOf(notification: Notification): EventNotification | undefined {
  return notification.method === 'event' ? (notification.params as EventNotification) : undefined;
}

function eventOfKind<K extends EventKind>(notification: Notification, kind: K | undefined): EventOf<K> | undefined {
  const event = eventOf(notification);
  return event !== undefined && (kind === undefined || event.kind === kind) ? (event as EventOf<K>) : undefined;
}

/** The events received so far, of `kind` when given, in arrival order. */
export function receivedEvents<K extends EventKind = EventKind>(client: NotificationSource, kind?: K): Array<EventOf<K>> {
  return client.notifications.flatMap((n) => eventOfKind(n, kind) ?? []);
}

/** The first event of `kind` (received before or after the call) that `accept` takes. */
export async function nextEvent<K extends EventKind = EventKind>(
  client: NotificationSource,
  kind?: K,
  accept: (event: EventOf<K>) => boolean = () => true,
): Promise<EventOf<K>> {
  const found = (n: Notification) => {
    const event = eventOfKind(n, kind);
    return event !== undefined && accept(event) ? event : undefined;
  };
  return found(await client.waitForNotification((n) => found(n) !== undefined))!;
}

/** An act's fresh observation; throws with the act's status and error when it has none. */
export function freshState(result: ActResult): Observation {
  if (result.fresh_state) return result.fresh_state;
  throw new Error(
    `the act has no fresh_state (${result.status}, observation ${result.observation}: ${result.error_type ?? ''} ${
      result.error_text ?? ''
    })`,
  );
}

// What the in-page module keeps in a context of our isolated world between calls. Page scripts
// cannot see it: the world's global object is its own.
import type { ChangeMonitor } from './monitor.ts';

/** An input armed in this world (settle.ts: armInputWait), until its handlers have run. */
export interface ArmedInput {
  seen: Promise<void>;
  disarm(): void;
}

export interface WorldState {
  /** The change monitor of this world's document, once the first take installed it. */
  monitor?: ChangeMonitor;
  inputWait?: ArmedInput;
  /** act's wait_for condition armed before its first input (conditions.ts: armCondition). */
  conditionWatch?: { held: boolean; stop(): void } | undefined;
}

/** This world's state: the one place the module reaches its global object. */
export function worldState(): WorldState {
  const scope = globalThis as unknown as { __pagewireState?: WorldState };
  return (scope.__pagewireState ??= {});
}

// The state a lone navigate acts on when the caller has none (PROTOCOL.md §7: "A navigate without
// state_id"): a navigation touches no node of the page it leaves, so it needs no observation of it.
import type { Tab } from '../browser/tab.ts';
import type { StateStore } from '../observe/state-store.ts';

/**
 * Issues a state of `tab`'s main document as it is now, unread (no refs, its frame `unavailable`):
 * enough for the act's checks of a navigation, and like any new state it supersedes the tab's
 * current one. Undefined when the tab has no main frame yet.
 */
export function unobservedState(states: StateStore, tab: Tab): string | undefined {
  const main = tab.frames.get(tab.mainFrameId);
  if (!main) return undefined;
  return states.issue({
    targetId: tab.targetId,
    frameId: main.id,
    frames: new Map([[main.id, {
      frameId: main.id,
      loaderId: main.loaderId,
      documentBackendNodeId: undefined,
      url: main.url,
      status: 'unavailable',
      reason: 'not observed: a navigate without state_id',
    }]]),
    targets: new Map(),
    elements: [],
    textHash: 0,
    dialogPending: false,
  }).stateId;
}

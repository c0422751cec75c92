// How long the page is left to settle after every act input (the in-page side: src/page/settle.ts),
// either on its own (settleFrame) or as the first half of the change monitor's read (one round trip
// for both: observe/settle.ts). Only these two know how long that is.
import type { FrameRecord } from './frame-tree.ts';
import type { IsolatedWorlds } from './isolated-worlds.ts';
import { callPage } from './page-module.ts';

/**
 * After input the page is taken as settled once one task turn has passed without a DOM mutation.
 * The input's handlers, and their microtasks, ran before the input was acknowledged; a zero-delay
 * timer they set runs before the settle's own (timers of equal delay run in order). After a
 * trusted input Chromium runs the next frame before any page task (the handlers' timers too), so
 * when the input changed what is rendered this turn ends just after that frame. Each settle is
 * also a round trip through the renderer, so what the handlers reported on that pipe (a requested
 * navigation, say) has arrived when it ends. A page that mutates meanwhile is busy: it is settled
 * once no mutation happened for this long…
 */
export const SETTLE_QUIET_MS = 4;
/** …or after this long at most (pages that never stop mutating). */
export const SETTLE_CAP_MS = 250;

/**
 * Lets `frame` settle (the in-page side: page/settle.ts), with nothing read meanwhile: for an
 * input whose changes no observation follows at once (observe/settle.ts takes them when one does).
 * Resolves at once when the frame has no context to settle in.
 */
export async function settleFrame(worlds: IsolatedWorlds, frame: FrameRecord, afterInput: boolean): Promise<void> {
  const context = await worlds.contextFor(frame.session, frame.id, frame.loaderId).catch(() => undefined);
  if (context === undefined) return;
  await callPage({ session: frame.session, executionContextId: context }, 'settle', [SETTLE_QUIET_MS, SETTLE_CAP_MS, afterInput], {
    timeoutMs: SETTLE_CAP_MS + 500,
  });
}

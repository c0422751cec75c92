// wait (PROTOCOL.md §7 "wait"): act's wait_for without an act. The condition is waited for by the
// same function act uses (actions/conditions.ts); the answer is an observation either way.
import { waitForCondition } from '../../actions/conditions.ts';
import { ActionError } from '../../actions/outcome.ts';
import type { Tab } from '../../browser/tab.ts';
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import { Deadline } from '../../util/deadline.ts';
import { DisposableStack } from '../../util/disposable.ts';
import type { AnyMethodDef } from '../define.ts';
import { DEFAULT_TIMEOUT_MS } from '../../wire/act.ts';
import { wait, waitConditionOf } from '../../wire/wait.ts';
import { sessionMethod } from './common.ts';
import { observeForWire } from './observation.ts';

/** A dialog came open: the page cannot be read until it is answered, so the wait ends unmet. */
class DialogOpened extends Error {}

/**
 * Rejects once nothing is left to wait for: the tab closed or crashed, the browser went away
 * (target_not_found), or a dialog is open (DialogOpened).
 */
function endOfWaiting(session: Session, tab: Tab, disposables: DisposableStack): Promise<never> {
  const ended = new Promise<never>((_, reject) => {
    const gone = () => reject(new ServerError('target_not_found', `tab ${tab.targetId} closed or crashed during the wait`));
    disposables.add(tab.events.on('closed', gone));
    disposables.add(tab.events.on('crashed', gone));
    disposables.add(session.browser.events.on('disconnected', gone));
    const opened = tab.dialogs.whenOpened();
    disposables.add(opened);
    opened.promise.then(() => reject(new DialogOpened()));
    if (tab.closed || tab.crashed || !session.browser.isConnected) gone();
  });
  ended.catch(() => {});
  return ended;
}

function frameGone(frameId: string): ServerError {
  return new ServerError('frame_not_found', `frame ${frameId} went away during the wait`, { details: { frame_id: frameId } });
}

export function waitMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...wait,
      run: async (session, params, { signal }) => {
        const tab = session.resolveTab(params.target_id);
        const frame = session.resolveFrame(tab, params.frame_id);
        const deadline = new Deadline(params.timeout_ms ? params.timeout_ms : DEFAULT_TIMEOUT_MS, { signal });
        const disposables = new DisposableStack();
        let verdict: 'met' | 'unmet';
        try {
          verdict = await waitForCondition(tab, () => tab.frames.get(frame.id), session.browser.worlds, waitConditionOf(params), {
            deadline,
            lost: endOfWaiting(session, tab, disposables),
          });
        } catch (error) {
          if (error instanceof DialogOpened) verdict = 'unmet';
          else if (error instanceof ActionError && error.type === 'invalid_params') throw new ServerError('invalid_params', error.message);
          else if (error instanceof ActionError && error.type === 'frame_detached') throw frameGone(frame.id);
          else throw error;
        } finally {
          disposables.dispose();
        }
        const now = tab.frames.get(frame.id);
        if (!now) throw frameGone(frame.id);
        const observation = await observeForWire(session, tab, now, {
          signal,
          ...(params.max_bytes !== undefined ? { maxBytes: params.max_bytes } : {}),
        });
        return { status: verdict === 'met' ? ('met' as const) : ('condition_not_met' as const), observation };
      },
    }),
  ];
}

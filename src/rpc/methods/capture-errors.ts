// How a failed capture of a tab (screenshot, page.pdf) reads on the wire: a dialog that opened
// during it (its message is page text, redacted like everywhere), the tab gone, the browser slow.
import type { PendingDialog } from '../../browser/dialogs.ts';
import type { Tab } from '../../browser/tab.ts';
import { modalBlockedError } from '../../capture/dialog-guard.ts';
import { isCdpError } from '../../cdp/errors.ts';
import { isServerError, ServerError } from '../../errors.ts';
import type { Session } from '../../sessions/session.ts';
import { redactSecrets } from '../../util/redact.ts';

/** Refuses a capture of a tab that holds a dialog open, before anything is sent. */
export function refuseWhileModal(session: Session, tab: Tab): void {
  const pending = tab.dialogs.pending;
  if (pending) throw modalBlockedError({ type: pending.type, message: redactSecrets(pending.message, session.knownSecrets()) });
}

/** The wire's error for a capture failure (`what`: the capture, as the message names it). */
export function captureFailure(session: Session, tab: Tab, error: unknown, what: string): unknown {
  if (isServerError(error, 'modal_blocked')) {
    const modal = error.details['modal'] as { type: PendingDialog['type']; message: string };
    return modalBlockedError({ type: modal.type, message: redactSecrets(modal.message, session.knownSecrets()) });
  }
  if (isCdpError(error) && (tab.closed || error.isTargetGone)) {
    return new ServerError('target_not_found', `tab ${tab.targetId} went away during the ${what}`, { cause: error });
  }
  if (isCdpError(error) && error.kind === 'timeout') {
    return new ServerError('timeout', `the browser did not answer in time (${error.method})`, { cause: error });
  }
  return error;
}

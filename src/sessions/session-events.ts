// What happens in a session's browser context, published into the session's event log
// (PROTOCOL.md §9): dialogs (with the session's dialog policy applied at once), file choosers,
// popups, closed tabs, navigations, console messages and crashes.
import type { Browser } from '../browser/browser.ts';
import type { Tab } from '../browser/tab.ts';
import { type Disposable, DisposableStack } from '../util/disposable.ts';
import { redactSecrets, redactUrl } from '../util/redact.ts';
import type { Session } from './session.ts';

/** Longest console text kept in an event (a page can log megabytes). */
const MAX_CONSOLE_TEXT = 4_000;

/** The ref a backend node has in the tab's current state, if it has one. */
function refOf(session: Session, tab: Tab, backendNodeId: number | undefined): string | undefined {
  if (backendNodeId === undefined) return undefined;
  for (const target of session.states.current(tab.targetId)?.targets.values() ?? []) {
    if (target.backendNodeId === backendNodeId) return target.ref;
  }
  return undefined;
}

export function watchSessionEvents(session: Session, browser: Browser): Disposable {
  const stack = new DisposableStack();
  const publish = session.events.publish.bind(session.events);
  const scrub = (text: string) => redactSecrets(text, session.secrets);
  const mine = (tab: Tab) => tab.browserContextId === session.browserContextId;

  const watchTab = (tab: Tab) => {
    const target_id = tab.targetId;
    tab.dialogs.policy = session.options.dialogs;
    stack.add(
      tab.events.on('navigated', (navigation) => {
        if (navigation.frameId === tab.mainFrameId) session.rememberOrigin(navigation.url);
      }),
    );
    stack.add(tab.events.on('closed', () => session.traffic.log.tabClosed(target_id)));
    stack.add(
      tab.dialogs.events.on('opened', (dialog) =>
        publish({
          kind: 'dialog',
          target_id,
          ...(dialog.frameId ? { frame_id: dialog.frameId } : {}),
          data: {
            type: dialog.type,
            message: scrub(dialog.message),
            ...(dialog.defaultPrompt !== undefined ? { default_prompt: scrub(dialog.defaultPrompt) } : {}),
            url: redactUrl(dialog.url),
            ...(dialog.handled ? { handled: dialog.handled } : {}),
          },
        })),
    );
    stack.add(
      tab.fileChooser.events.on('opened', (chooser) => {
        const ref = refOf(session, tab, chooser.backendNodeId);
        publish({
          kind: 'file_chooser',
          target_id,
          frame_id: chooser.frameId,
          data: { mode: chooser.mode === 'selectMultiple' ? 'select_multiple' : 'select_single', ...(ref ? { ref } : {}) },
        });
      }),
    );
    stack.add(
      tab.events.on('navigated', (navigation) =>
        publish({
          kind: 'navigation',
          target_id,
          frame_id: navigation.frameId,
          data: {
            frame_id: navigation.frameId,
            ...(navigation.loaderId ? { loader_id: navigation.loaderId } : {}),
            url: redactUrl(navigation.url),
            same_document: navigation.sameDocument,
          },
        })),
    );
    stack.add(
      tab.events.on(
        'console',
        (message) =>
          publish({ kind: 'console', target_id, data: { level: message.level, text: scrub(message.text.slice(0, MAX_CONSOLE_TEXT)) } }),
      ),
    );
  };

  for (const tab of browser.tabsInContext(session.browserContextId)) if (!session.claimInternal(tab)) watchTab(tab);
  stack.add(
    browser.events.on('tabCreated', (tab) => {
      // The session's storage helper is the server's own: no events of it.
      if (!mine(tab) || session.claimInternal(tab)) return;
      watchTab(tab);
      if (tab.openerId) {
        publish({
          kind: 'popup',
          target_id: tab.targetId,
          data: { target_id: tab.targetId, opener_id: tab.openerId, url: redactUrl(tab.url) },
        });
      }
    }),
  );
  stack.add(
    browser.events.on('tabClosed', ({ tab }) => {
      if (mine(tab) && !session.claimInternal(tab)) {
        publish({ kind: 'tab_closed', target_id: tab.targetId, data: { target_id: tab.targetId } });
      }
    }),
  );
  stack.add(
    browser.events.on('tabCrashed', ({ tab, status }) => {
      if (!mine(tab) || session.claimInternal(tab)) return;
      publish({
        kind: 'crash',
        target_id: tab.targetId,
        data: {
          scope: 'renderer',
          target_id: tab.targetId,
          status,
          hint: "the tab's page crashed: reload it (act reload) or close it (tabs.close); its states are no longer usable",
        },
      });
    }),
  );
  return stack;
}

// A Tab over a scripted CDP peer (fake-cdp.ts): started up with a main frame F1 on session S1,
// every later call left to the test to answer. For the tab's own bookkeeping (crash reports,
// modals) without a browser.
import { type AttachedSession, Connection } from '../../src/cdp/connection.ts';
import { Tab } from '../../src/browser/tab.ts';
import { attachEvent, FakeCdpPeer } from './fake-cdp.ts';

/** Commands a tab sends to start up, answered at once; everything else stays pending. */
export const TAB_STARTUP_COMMANDS = [
  'Page.enable',
  'Page.setLifecycleEventsEnabled',
  'Runtime.enable',
  'Page.setInterceptFileChooserDialog',
  'Target.setAutoAttach',
  'Runtime.runIfWaitingForDebugger',
];

/** Frame `id` showing document `loaderId` at `url`, as Page events carry it. */
export function frameInfo(loaderId: string, url: string, id = 'F1', parentId?: string) {
  return {
    id,
    ...(parentId ? { parentId } : {}),
    loaderId,
    url,
    domainAndRegistry: '',
    securityOrigin: '',
    mimeType: 'text/html',
    secureContext: false,
    crossOriginIsolatedContextType: 'NotIsolated' as const,
    gatedAPIFeatures: [],
  };
}

/** The tab's main frame showing document `loaderId` at `url`. */
export function mainFrame(loaderId: string, url: string) {
  return frameInfo(loaderId, url);
}

export async function openFakeTab(): Promise<{ peer: FakeCdpPeer; tab: Tab; crashes: () => number }> {
  const peer = new FakeCdpPeer();
  for (const method of TAB_STARTUP_COMMANDS) peer.answer(method, () => ({ result: {} }));
  peer.answer('Page.getFrameTree', () => ({
    result: {
      frameTree: {
        frame: mainFrame('L1', 'http://127.0.0.1/'),
      },
    },
  }));
  const connection = new Connection(peer);
  const attached = new Promise<AttachedSession>((resolve) => connection.onAttached(resolve));
  peer.emit('Target.attachedToTarget', attachEvent('S1', 'T1'));
  const tab = new Tab(await attached, {
    pendingCalls: {
      mark: () => connection.callMark(),
      failBefore: (sessionId, mark) => connection.failPending(sessionId, 'the page crashed', { sentBefore: mark }),
    },
  });
  await tab.ready;
  let crashes = 0;
  tab.events.on('crashed', () => crashes++);
  return { peer, tab, crashes: () => crashes };
}

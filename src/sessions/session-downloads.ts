// Downloads per session: each session's browser context saves into its own folder (never the
// user's home), one tracker per browser turns Browser.download* events into the session's
// `download` events and downloads.list, and a closed session's downloads are forgotten.
import type { Browser } from '../browser/browser.ts';
import { downloadData, type DownloadFiles, type DownloadHistory, type DownloadOwner, DownloadTracker } from '../browser/downloads.ts';
import type { Session } from './session.ts';

export interface SessionDownloadsOptions {
  /** The folder a session's downloads land in (created on demand). */
  folderFor(sessionId: string): Promise<string>;
  files: DownloadFiles;
}

export class SessionDownloads {
  readonly #options: SessionDownloadsOptions;
  readonly #trackers = new Map<Browser, DownloadTracker>();
  /** browserContextId → its session and folder. */
  readonly #owners = new Map<string, { session: Session; folder: string }>();

  constructor(options: SessionDownloadsOptions) {
    this.#options = options;
  }

  /** Routes the session's downloads to its folder; call before its first tab exists. */
  async enable(session: Session): Promise<void> {
    this.#trackerFor(session.browser);
    const folder = await this.#options.folderFor(session.id);
    // eventsEnabled applies to the whole browser connection: every call must say true, or the
    // last one would silence the events of every other context.
    await session.browser.connection.root.send('Browser.setDownloadBehavior', {
      behavior: 'allowAndName',
      browserContextId: session.browserContextId,
      downloadPath: folder,
      eventsEnabled: true,
    });
    this.#owners.set(session.browserContextId, { session, folder });
  }

  historyOf(session: Session): DownloadHistory | undefined {
    return this.#trackers.get(session.browser);
  }

  forget(session: Session): void {
    this.#owners.delete(session.browserContextId);
    this.#trackers.get(session.browser)?.forget(session.id);
  }

  /** The browser is gone: its tracker goes once its file work is done. */
  lost(browser: Browser): void {
    const tracker = this.#trackers.get(browser);
    if (!tracker) return;
    tracker.dispose();
    void tracker.whenIdle().then(() => this.#trackers.delete(browser));
  }

  /** Renames and clean-ups still running (awaited at shutdown). */
  async whenIdle(): Promise<void> {
    await Promise.all([...this.#trackers.values()].map((tracker) => tracker.whenIdle()));
  }

  #trackerFor(browser: Browser): DownloadTracker {
    let tracker = this.#trackers.get(browser);
    if (tracker) return tracker;
    tracker = new DownloadTracker({
      root: browser.connection.root,
      files: this.#options.files,
      resolveOwner: (frameId): DownloadOwner | undefined => {
        // frames.get covers iframes and OOPIFs; targetId === frameId a tab whose tree is not loaded yet.
        const tab = browser.tabs().find((t) => !t.closed && (t.targetId === frameId || t.frames.get(frameId) !== undefined));
        const owner = tab?.browserContextId ? this.#owners.get(tab.browserContextId) : undefined;
        if (!tab || !owner) return undefined;
        return { sessionKey: owner.session.id, targetId: tab.targetId, browserContextId: tab.browserContextId!, folder: owner.folder };
      },
    });
    tracker.events.on('download', ({ sessionKey, record }) => {
      const owner = [...this.#owners.values()].find((o) => o.session.id === sessionKey);
      if (owner && !owner.session.closed) {
        owner.session.events.publish({
          kind: 'download',
          target_id: record.target_id,
          frame_id: record.frame_id,
          data: downloadData(record),
        });
      }
    });
    this.#trackers.set(browser, tracker);
    return tracker;
  }
}

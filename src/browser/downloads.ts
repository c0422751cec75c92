// Downloads of the whole browser (PROTOCOL.md §9), from Browser.downloadWillBegin and
// Browser.downloadProgress on the root session. Those come without a sessionId (CDP-NOTES §8), so
// the owner of each download is found through the frame that started it. Per guid we keep one
// record, follow its state, and on completion give the file (which Chromium names by guid) a
// readable name in the same folder; a cancelled one has its leftovers removed.
//
// File work goes through DownloadFiles (implemented in src/runtime/), so this layer stays free of
// node:* and runs the same under the fake CDP peer in tests.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { CdpSession } from '../cdp/session.ts';
import type { Download } from '../wire/index.ts';
import { type Disposable, DisposableStack } from '../util/disposable.ts';
import { Emitter } from '../util/emitter.ts';
import { redactUrl } from '../util/redact.ts';

export type DownloadState = 'started' | 'in_progress' | 'completed' | 'canceled';

/** One download as pagewire tracks it. `url` is as Chromium gave it; redact it before it leaves. */
export interface DownloadRecord {
  readonly guid: string;
  readonly url: string;
  readonly suggested_filename: string;
  readonly state: DownloadState;
  readonly received_bytes: number;
  /** 0 while the size is unknown (no Content-Length). */
  readonly total_bytes: number;
  /** Absolute path of the finished file (completed only). */
  readonly path?: string;
  readonly target_id: string;
  readonly frame_id: string;
  readonly session_key: string;
}

/** Who a download belongs to, as the integrator knows it from the frame that started it. */
export interface DownloadOwner {
  /** The pagewire session (its id). */
  sessionKey: string;
  /** The tab whose frame started the download. */
  targetId: string;
  /** The owner's browser context: Browser.cancelDownload finds no download of a non-default context without it. */
  browserContextId: string;
  /** The `downloadPath` given to Browser.setDownloadBehavior for that context: where `<guid>` lands. */
  folder: string;
}

/** File work for downloads; the runtime implements it (src/runtime/download-files.ts). */
export interface DownloadFiles {
  /**
   * Gives the finished `<folder>/<guid>` a safe, free name derived from `suggestedFilename` in
   * the same folder and returns the file's absolute path.
   */
  finish(folder: string, guid: string, suggestedFilename: string): Promise<string>;
  /** Removes what a cancelled download left: `<folder>/<guid>` and `<folder>/<guid>.crdownload`, if present. */
  discard(folder: string, guid: string): Promise<void>;
}

/** Anything downloads.list can read a session's downloads from (a tracker). */
export interface DownloadHistory {
  list(sessionKey: string): DownloadRecord[];
}

export interface DownloadEvents extends Record<string, unknown> {
  /** Every state change of a download of a known owner (in_progress ones may be frequent). */
  download: { sessionKey: string; record: DownloadRecord };
}

export interface DownloadTrackerOptions {
  /** The browser-level session (Connection.root): Browser.* download events arrive there. */
  root: CdpSession;
  /** The owner of a frame, or undefined for frames of no session (those downloads are ignored). */
  resolveOwner: (frameId: string) => DownloadOwner | undefined;
  files: DownloadFiles;
  /** Records kept per session for list(). Default 200. */
  historyLimit?: number;
  /** File work that failed (the download is still reported, with the path Chromium left it at). */
  onError?: (error: unknown, record: DownloadRecord) => void;
}

export const DEFAULT_DOWNLOAD_HISTORY = 200;

interface Entry {
  record: DownloadRecord;
  owner: DownloadOwner;
  /** A final progress event arrived; later ones are ignored while its file work runs. */
  finishing: boolean;
}

/** The §9 `data` of a download event and of a downloads.list item (URL redacted per §11). */
export function downloadData(record: DownloadRecord): Download {
  return {
    guid: record.guid,
    url: redactUrl(record.url),
    suggested_filename: record.suggested_filename,
    state: record.state,
    received_bytes: record.received_bytes,
    total_bytes: record.total_bytes,
    ...(record.path !== undefined ? { path: record.path } : {}),
  };
}

export class DownloadTracker implements Disposable, DownloadHistory {
  readonly events = new Emitter<DownloadEvents>();
  readonly #root: CdpSession;
  readonly #resolveOwner: (frameId: string) => DownloadOwner | undefined;
  readonly #files: DownloadFiles;
  readonly #historyLimit: number;
  readonly #onError: (error: unknown, record: DownloadRecord) => void;
  /**
   * Downloads not yet in a final state. Kept apart from the bounded history, so a download that
   * falls out of list() still has its file renamed or cleaned up when it ends.
   */
  readonly #active = new Map<string, Entry>();
  /** session key → its most recent entries, oldest first. */
  readonly #history = new Map<string, Entry[]>();
  readonly #pending = new Set<Promise<void>>();
  readonly #disposables = new DisposableStack();

  constructor(options: DownloadTrackerOptions) {
    this.#root = options.root;
    this.#resolveOwner = options.resolveOwner;
    this.#files = options.files;
    this.#historyLimit = Math.max(1, options.historyLimit ?? DEFAULT_DOWNLOAD_HISTORY);
    this.#onError = options.onError ?? (() => {});
    this.#disposables.add(this.#root.on('Browser.downloadWillBegin', (event) => this.#onWillBegin(event)));
    this.#disposables.add(this.#root.on('Browser.downloadProgress', (event) => this.#onProgress(event)));
  }

  /** The session's downloads, oldest first (at most the last `historyLimit`). */
  list(sessionKey: string): DownloadRecord[] {
    return (this.#history.get(sessionKey) ?? []).map((entry) => entry.record);
  }

  /** A download still being tracked (running, or in the history of its session). */
  get(guid: string): DownloadRecord | undefined {
    const active = this.#active.get(guid);
    if (active) return active.record;
    for (const entries of this.#history.values()) {
      const found = entries.find((entry) => entry.record.guid === guid);
      if (found) return found.record;
    }
    return undefined;
  }

  /**
   * Asks Chromium to cancel a running download; its `canceled` state arrives as an event.
   * False when the guid is unknown or already finished.
   */
  async cancel(guid: string): Promise<boolean> {
    const entry = this.#active.get(guid);
    if (!entry || entry.finishing) return false;
    await this.#root.send('Browser.cancelDownload', { guid, browserContextId: entry.owner.browserContextId });
    return true;
  }

  /** The session is gone: its history goes; its running downloads are still finished or cleaned up. */
  forget(sessionKey: string): void {
    this.#history.delete(sessionKey);
  }

  /** Resolves once every rename and cleanup started so far has ended (tests; shutdown before folders go). */
  async whenIdle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending]);
  }

  dispose(): void {
    this.#disposables.dispose();
    this.events.removeAll();
  }

  #onWillBegin(event: Cdp.Browser.DownloadWillBeginEvent): void {
    if (this.#active.has(event.guid)) return;
    // Downloads of frames no session owns (the default context of a --connect browser, say)
    // are not ours to report; their progress events then find no entry and are ignored too.
    const owner = this.#resolveOwner(event.frameId);
    if (!owner) return;
    const entry: Entry = {
      owner,
      finishing: false,
      record: {
        guid: event.guid,
        url: event.url,
        suggested_filename: event.suggestedFilename,
        state: 'started',
        received_bytes: 0,
        total_bytes: 0,
        target_id: owner.targetId,
        frame_id: event.frameId,
        session_key: owner.sessionKey,
      },
    };
    this.#active.set(event.guid, entry);
    let entries = this.#history.get(owner.sessionKey);
    if (!entries) {
      entries = [];
      this.#history.set(owner.sessionKey, entries);
    }
    entries.push(entry);
    if (entries.length > this.#historyLimit) entries.splice(0, entries.length - this.#historyLimit);
    this.#emit(entry);
  }

  #onProgress(event: Cdp.Browser.DownloadProgressEvent): void {
    const entry = this.#active.get(event.guid);
    if (!entry || entry.finishing) return;
    const bytes = { received_bytes: event.receivedBytes, total_bytes: event.totalBytes };
    if (event.state === 'inProgress') {
      const before = entry.record;
      // Chromium repeats progress events that change nothing (same bytes, twice in a row):
      // they would only push real events out of the session's 1000-event replay window.
      if (before.state === 'in_progress' && before.received_bytes === bytes.received_bytes && before.total_bytes === bytes.total_bytes) {
        return;
      }
      entry.record = { ...before, ...bytes, state: 'in_progress' };
      this.#emit(entry);
      return;
    }
    entry.finishing = true;
    if (event.state === 'completed') {
      // Reported once the file has its final name, so the event's path is one the client can open.
      entry.record = { ...entry.record, ...bytes };
      this.#track(this.#complete(entry, event.filePath));
      return;
    }
    // Canceled: reported at once; the leftovers go after. CDP-NOTES §8 saw `<guid>.crdownload`
    // left behind; Chrome 156 removed it itself. Removing what is there is right either way.
    entry.record = { ...entry.record, ...bytes, state: 'canceled' };
    this.#active.delete(event.guid);
    this.#emit(entry);
    this.#track(
      this.#files.discard(entry.owner.folder, entry.record.guid).catch((error: unknown) => this.#reportError(error, entry.record)),
    );
  }

  async #complete(entry: Entry, chromiumPath: string | undefined): Promise<void> {
    let path: string | undefined;
    try {
      path = await this.#files.finish(entry.owner.folder, entry.record.guid, entry.record.suggested_filename);
    } catch (error) {
      // The download did complete; the client still gets it, under the name Chromium gave it.
      path = chromiumPath;
      this.#reportError(error, entry.record);
    }
    entry.record = { ...entry.record, state: 'completed', ...(path !== undefined ? { path } : {}) };
    this.#active.delete(entry.record.guid);
    this.#emit(entry);
  }

  #reportError(error: unknown, record: DownloadRecord): void {
    try {
      this.#onError(error, record);
    } catch {
      // A failing error reporter must not keep the download from being reported.
    }
  }

  #track(work: Promise<void>): void {
    // Never an unhandled rejection: failures were already handed to onError.
    const tracked: Promise<void> = work.catch(() => {}).finally(() => this.#pending.delete(tracked));
    this.#pending.add(tracked);
  }

  #emit(entry: Entry): void {
    this.events.emit('download', { sessionKey: entry.owner.sessionKey, record: entry.record });
  }
}

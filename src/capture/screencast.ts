// The live view of one tab (PROTOCOL.md §13): Page.startScreencast frames handed to the tab's
// watchers, with the password masks held on (§11) for as long as it runs.
//
// Pacing is done by the acknowledgement alone. Chromium sends the next frame only after
// Page.screencastFrameAck, so the server holds at most one frame per tab and never queues:
// - a frame is acked once every watcher took it (a watcher whose socket is backed up takes the
//   newest frame when it has drained, and skips the ones in between);
// - and no sooner than 1/max_fps after the previous ack.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { Tab } from '../browser/tab.ts';
import { DisposableStack } from '../util/disposable.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPage } from '../browser/page-module.ts';
import { imageSize } from './image-header.ts';
import { PasswordMaskHold } from './masks.ts';

export interface ScreencastSettings {
  maxFps: number;
  quality: number;
  maxWidth: number;
}

export const DEFAULT_SCREENCAST: ScreencastSettings = { maxFps: 10, quality: 60, maxWidth: 1280 };

export interface ScreencastFrame {
  mime: 'image/jpeg';
  data: string;
  width: number;
  height: number;
  timestamp: number;
  scale: number;
}

export interface ScreencastWatcher {
  /** Hands the frame to the viewer; false when the viewer is backed up and did not take it. */
  offer(frame: ScreencastFrame): boolean;
}

export interface ScreencastStats {
  /** Frames Chromium sent. */
  readonly received: number;
  /** Frames acknowledged (each ack covers the frames it superseded). */
  readonly acked: number;
  /** Frames Chromium sent that are not acknowledged yet (at most its frames in flight). */
  readonly unacked: number;
}

/** How often a backed-up watcher is asked again (neither ws nor RpcConnection has a drain callback). */
const DRAIN_POLL_MS = 20;
/** Tall enough never to cut a page shorter than its width allows. */
const MAX_HEIGHT = 4096;
/** How long the first frame waits for the page to paint its masks (a background tab may never). */
const MASK_PAINT_CAP_MS = 300;

export class TabScreencast {
  readonly tab: Tab;
  readonly #watchers = new Map<string, ScreencastWatcher>();
  readonly #mask: PasswordMaskHold;
  readonly #worlds: IsolatedWorlds;
  readonly #stack = new DisposableStack();
  readonly #onEnd: () => void;
  #settings: ScreencastSettings;
  /** Resolves once the tab's current documents are masked; frames wait for it. */
  #masked: Promise<void>;
  /**
   * Masks being applied and painted (after a navigation): a frame that comes meanwhile may show
   * the new document unmasked, and is acknowledged without being shown.
   */
  #masking = 0;
  #started: Promise<void> | undefined;
  #latest: ScreencastFrame | undefined;
  /** Watchers that have not taken #latest yet. */
  #owed = new Set<string>();
  /** Chromium's ids of the frames not acknowledged yet. */
  #unacked: number[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastAckAt = 0;
  #received = 0;
  #acked = 0;
  #ended = false;

  constructor(init: { tab: Tab; worlds: IsolatedWorlds; settings: ScreencastSettings; onEnd: () => void }) {
    this.tab = init.tab;
    this.#worlds = init.worlds;
    this.#settings = init.settings;
    this.#onEnd = init.onEnd;
    this.#mask = new PasswordMaskHold(init.tab);
    this.#masked = this.#maskAndPaint();
    this.#stack.add(init.tab.session.on('Page.screencastFrame', (event) => this.#onFrame(event)));
    this.#stack.add(
      init.tab.events.on('navigated', (navigation) => {
        // A new document has no mask yet: its frames wait until it has one.
        if (!navigation.sameDocument) this.#masked = this.#maskAndPaint();
      }),
    );
    this.#stack.add(init.tab.events.on('closed', () => void this.end()));
  }

  get stats(): ScreencastStats {
    return { received: this.#received, acked: this.#acked, unacked: this.#unacked.length };
  }

  get watcherCount(): number {
    return this.#watchers.size;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /** Adds (or replaces) a watcher; new settings restart the capture with them. */
  async watch(id: string, watcher: ScreencastWatcher, settings: ScreencastSettings): Promise<void> {
    this.#watchers.set(id, watcher);
    const changed = !sameSettings(settings, this.#settings);
    this.#settings = settings;
    if (this.#started && !changed) {
      // A new watcher sees the picture at once rather than at the page's next paint.
      if (this.#latest) {
        this.#owed.add(id);
        this.#pump();
      }
      return;
    }
    this.#started = this.#start();
    await this.#started;
  }

  /** Removes a watcher; the last one ends the screencast. Returns whether it was watching. */
  async unwatch(id: string): Promise<boolean> {
    if (!this.#watchers.delete(id)) return false;
    this.#owed.delete(id);
    if (this.#watchers.size === 0) await this.end();
    else this.#pump();
    return true;
  }

  /** Stops the capture and takes the masks off. Idempotent. */
  async end(): Promise<void> {
    if (this.#ended) return;
    this.#ended = true;
    this.#watchers.clear();
    this.#owed.clear();
    this.#latest = undefined;
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#stack.dispose();
    this.#onEnd();
    // A closed tab answers nothing; its masks' counts are still given back.
    await Promise.allSettled([this.tab.closed ? undefined : this.tab.session.send('Page.stopScreencast'), this.#mask.release()]);
  }

  /**
   * Masks the tab's documents and, before the first frame, lets the page paint them: a screencast
   * started right after the mask's style sheet was set once sent a first frame of the unmasked
   * page (the surface it copies was drawn before the style change).
   */
  async #maskAndPaint(): Promise<void> {
    this.#masking++;
    try {
      await this.#paintMasks();
    } finally {
      this.#masking--;
    }
  }

  async #paintMasks(): Promise<void> {
    await this.#mask.apply();
    const top = this.tab.frames.get(this.tab.mainFrameId);
    if (!top || this.tab.dialogs.pending) return;
    try {
      const executionContextId = await this.#worlds.contextFor(top.session, top.id, top.loaderId);
      await callPage({ session: top.session, executionContextId }, 'afterNextPaint', [MASK_PAINT_CAP_MS], {
        timeoutMs: MASK_PAINT_CAP_MS + 500,
      });
    } catch {
      // A document going away meanwhile: its successor is masked on its navigation.
    }
  }

  async #start(): Promise<void> {
    await this.#masked;
    if (this.#ended) return;
    const { quality, maxWidth } = this.#settings;
    await this.tab.session.send('Page.startScreencast', {
      format: 'jpeg',
      quality,
      maxWidth,
      maxHeight: MAX_HEIGHT,
      everyNthFrame: 1,
      maxFramesInFlight: 1,
    });
  }

  #onFrame(event: Cdp.Page.ScreencastFrameEvent): void {
    if (this.#ended) return;
    this.#received++;
    if (this.#masking > 0) {
      this.#acked++;
      void this.tab.session.send('Page.screencastFrameAck', { sessionId: event.sessionId }).catch(() => {});
      return;
    }
    this.#unacked.push(event.sessionId);
    const { metadata } = event;
    const size = imageSize('jpeg', event.data) ?? {
      width: Math.round(metadata.deviceWidth * metadata.pageScaleFactor),
      height: Math.round(metadata.deviceHeight * metadata.pageScaleFactor),
    };
    this.#latest = {
      mime: 'image/jpeg',
      data: event.data,
      width: size.width,
      height: size.height,
      timestamp: metadata.timestamp !== undefined ? Math.round(metadata.timestamp * 1000) : Date.now(),
      scale: metadata.deviceWidth > 0 ? size.width / metadata.deviceWidth : 1,
    };
    this.#owed = new Set(this.#watchers.keys());
    const masked = this.#masked;
    void masked.then(
      () => {
        // A newer document started masking meanwhile: wait for that one instead.
        if (masked === this.#masked) this.#pump();
        else void this.#masked.then(() => this.#pump(), () => this.#pump());
      },
      () => this.#pump(),
    );
  }

  /** Offers the newest frame to the watchers that still owe it, then acknowledges when it may. */
  #pump(): void {
    if (this.#ended || this.#timer !== undefined || !this.#latest) return;
    const frame = this.#latest;
    for (const id of [...this.#owed]) {
      const watcher = this.#watchers.get(id);
      if (!watcher || watcher.offer(frame)) this.#owed.delete(id);
    }
    if (this.#owed.size > 0) {
      this.#schedule(DRAIN_POLL_MS);
      return;
    }
    if (this.#unacked.length === 0) return;
    const wait = this.#lastAckAt + 1000 / this.#settings.maxFps - Date.now();
    if (wait > 0) {
      this.#schedule(wait);
      return;
    }
    const ids = this.#unacked;
    this.#unacked = [];
    this.#lastAckAt = Date.now();
    for (const sessionId of ids) {
      this.#acked++;
      void this.tab.session.send('Page.screencastFrameAck', { sessionId }).catch(() => {});
    }
  }

  #schedule(ms: number): void {
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.#pump();
    }, ms);
  }
}

function sameSettings(a: ScreencastSettings, b: ScreencastSettings): boolean {
  return a.maxFps === b.maxFps && a.quality === b.quality && a.maxWidth === b.maxWidth;
}

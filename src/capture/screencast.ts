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
import { isCdpError } from '../cdp/errors.ts';
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
  /** Frames acknowledged (each ack covers the frames it superseded), or void (of a capture since stopped). */
  readonly acked: number;
  /** Frames Chromium sent that are not acknowledged yet (at most its frames in flight). */
  readonly unacked: number;
}

/** How often a backed-up watcher is asked again (neither ws nor RpcConnection has a drain callback). */
const DRAIN_POLL_MS = 20;
/** Tall enough never to cut a page shorter than its width allows. */
const MAX_HEIGHT = 4096;
/** How long one request for a frame with the masks waits before it is sent again. */
const MASKED_FRAME_TIMEOUT_MS = 30_000;

export class TabScreencast {
  readonly tab: Tab;
  readonly #watchers = new Map<string, ScreencastWatcher>();
  readonly #mask: PasswordMaskHold;
  readonly #stack = new DisposableStack();
  readonly #onEnd: () => void;
  #settings: ScreencastSettings;
  /** Which masking is the latest (an older one finishing late must not speak for a newer document). */
  #generation = 0;
  /** The latest masking is still under way (a frame then does not start another). */
  #drawing = false;
  /**
   * Since when (ms since the epoch, like a frame's capture time) the current documents are known
   * to be drawn with their masks; undefined until then. A frame captured earlier is not shown:
   * one still on its way (captured, encoded, sent) once showed the new document unmasked.
   */
  #maskedSince: number | undefined;
  /** Chromium's capture is on: a masking confirmed later restarts it for a fresh frame. */
  #running = false;
  /** Starts and restarts, one after another: a start while the capture is on is refused. */
  #captureTurn: Promise<void> = Promise.resolve();
  #started: Promise<void> | undefined;
  #latest: ScreencastFrame | undefined;
  /** Watchers that have not taken #latest yet. */
  #owed = new Set<string>();
  /** Chromium's ids of the frames not acknowledged yet. */
  #unacked: number[] = [];
  #timer: ReturnType<typeof setTimeout> | undefined;
  #lastAckAt = 0;
  /** When the latest frame was handed to the watchers (a restart's first frame keeps max_fps from it). */
  #lastShownAt = 0;
  #received = 0;
  #acked = 0;
  #ended = false;

  constructor(init: { tab: Tab; settings: ScreencastSettings; onEnd: () => void }) {
    this.tab = init.tab;
    this.#settings = init.settings;
    this.#onEnd = init.onEnd;
    this.#mask = new PasswordMaskHold(init.tab);
    this.#remask();
    this.#stack.add(init.tab.session.on('Page.screencastFrame', (event) => this.#onFrame(event)));
    this.#stack.add(
      init.tab.events.on('navigated', (navigation) => {
        // A new document has no mask yet: its frames wait until it has one.
        if (!navigation.sameDocument) this.#remask();
      }),
    );
    this.#stack.add(
      // The masks could not be drawn while the dialog was open: now they can.
      init.tab.dialogs.events.on('closed', () => this.#remaskIfUndrawn()),
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
   * Masks the tab's documents and has Chromium draw a frame with the masks before any frame is
   * shown. Waiting for the page's own paint was not enough: a first frame of the unmasked
   * password field still came (CI), since Chromium's first screencast frame copies what was drawn
   * last, and frames captured before the masks may still be on their way. Once confirmed, a
   * running capture is restarted for a fresh frame, so a still page shows up masked too.
   */
  #remask(): void {
    const generation = ++this.#generation;
    this.#maskedSince = undefined;
    this.#drawing = true;
    void (async () => {
      let since: number | undefined;
      try {
        since = await this.#drawMasks(generation);
      } catch {
        // The masks could not be set (the document went away): its frames stay unshown.
      }
      if (generation !== this.#generation || this.#ended) return;
      this.#drawing = false;
      this.#maskedSince = since;
      if (since !== undefined && this.#running) await this.#restart().catch(() => {});
    })();
  }

  /** Masks again when the current documents' masks were not drawn and no masking is under way. */
  #remaskIfUndrawn(): void {
    if (!this.#drawing && this.#maskedSince === undefined) this.#remask();
  }

  /**
   * Sets the masks and has a frame drawn with them: when it was drawn by (epoch ms), or undefined
   * when it cannot be now (a dialog is open: its closing masks again; the document is replaced: its
   * navigation does).
   */
  async #drawMasks(generation: number): Promise<number | undefined> {
    for (;;) {
      // Renderer calls hang while a dialog is open (CDP-NOTES §7).
      if (this.tab.dialogs.pending) return undefined;
      await this.#mask.apply();
      // Chromium answers a screenshot only after drawing a new frame for it, and that frame has
      // the style sheets set above. (The page's two animation frames were an estimate, not a
      // promise.) A page whose main thread is busy draws it when it yields; a hidden tab, when shown.
      try {
        await this.tab.session.sendWith({ timeoutMs: MASKED_FRAME_TIMEOUT_MS }, 'Page.captureScreenshot', {
          format: 'jpeg',
          quality: 0,
          optimizeForSpeed: true,
        });
        return Date.now();
      } catch (error) {
        if (!(isCdpError(error) && error.kind === 'timeout') || generation !== this.#generation || this.#ended) return undefined;
      }
    }
  }

  /** Starts Chromium's capture at once (frames are withheld until the masks are drawn), or restarts it with new settings. */
  async #start(): Promise<void> {
    if (this.#ended) return;
    if (this.#running) return await this.#restart();
    this.#running = true;
    await this.#inTurn(() => this.#capture());
  }

  /** A fresh capture, whose first frame copies what the page shows now (sent while running, Page.startScreencast is refused). */
  #restart(): Promise<void> {
    return this.#inTurn(async () => {
      await this.tab.session.send('Page.stopScreencast');
      // The stopped capture's frames need no acknowledgement any more (Chromium ignores one for them).
      this.#acked += this.#unacked.length;
      this.#unacked = [];
      // The new capture's first frame comes at once, with no acknowledgement to pace it.
      const wait = this.#lastShownAt + 1000 / this.#settings.maxFps - Date.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
      if (!this.#ended) await this.#capture();
    });
  }

  #inTurn(work: () => Promise<void>): Promise<void> {
    const turn = this.#captureTurn.then(work);
    this.#captureTurn = turn.catch(() => {});
    return turn;
  }

  /** Starts Chromium's capture: its first frame is a copy of what the page shows now. */
  async #capture(): Promise<void> {
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
    // Without a capture time a frame cannot be told from one of before the masks.
    const capturedAt = event.metadata.timestamp !== undefined ? event.metadata.timestamp * 1000 : -Infinity;
    if (this.#maskedSince !== undefined && capturedAt < this.#maskedSince) {
      // Captured before the masks were drawn, so before the restart that followed: it is not
      // acknowledged, since Chromium stamps a frame with the capture that sends it, not the one
      // that took it, and its acknowledgement would let the new capture run one frame ahead.
      this.#acked++;
      return;
    }
    if (this.#maskedSince === undefined) {
      // Masks not drawn yet (or being drawn): a frame may show the document unmasked.
      this.#acknowledge(event.sessionId);
      // A document whose masks were not drawn (a dialog was open, or the drawing failed): its
      // frames try again, and a fresh one is asked for once they are.
      this.#remaskIfUndrawn();
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
    this.#lastShownAt = Date.now();
    this.#pump();
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
    for (const sessionId of ids) this.#acknowledge(sessionId);
  }

  #acknowledge(sessionId: number): void {
    this.#acked++;
    void this.tab.session.send('Page.screencastFrameAck', { sessionId }).catch(() => {});
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

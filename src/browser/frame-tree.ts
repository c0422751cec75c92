// The frames of one tab, kept current from Page.* events of every session that owns part of the
// tab (the page itself and each out-of-process iframe). Children keep document order as far as
// CDP tells it: the order of getFrameTree and of frameAttached events.
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { CdpSession } from '../cdp/session.ts';

export interface FrameRecord {
  readonly id: string;
  parentId: string | undefined;
  url: string;
  name: string;
  loaderId: string;
  /** The document's origin as Chromium serialises it (`null` for an opaque one; '' until known). */
  origin: string;
  /** The session whose renderer hosts this frame's document. */
  session: CdpSession;
  /** Hosted by its own target (an out-of-process iframe). */
  crossProcess: boolean;
  /** Between Page.frameStartedLoading and frameStoppedLoading. */
  loading: boolean;
  children: string[];
}

export class FrameTree {
  readonly #frames = new Map<string, FrameRecord>();
  #mainId: string | undefined;

  get mainFrameId(): string | undefined {
    return this.#mainId;
  }

  get(frameId: string): FrameRecord | undefined {
    return this.#frames.get(frameId);
  }

  get size(): number {
    return this.#frames.size;
  }

  /** Main frame first, then depth-first in child order. */
  list(): FrameRecord[] {
    const out: FrameRecord[] = [];
    const visit = (id: string) => {
      const frame = this.#frames.get(id);
      if (!frame) return;
      out.push(frame);
      for (const child of frame.children) visit(child);
    };
    if (this.#mainId) visit(this.#mainId);
    return out;
  }

  /** Loads a `Page.getFrameTree` answer from `session` (the page's or an OOPIF's own). */
  loadTree(session: CdpSession, tree: Cdp.Page.FrameTree, crossProcess: boolean): void {
    const walk = (node: Cdp.Page.FrameTree, isRoot: boolean) => {
      this.#upsert(session, node.frame, isRoot ? crossProcess : false);
      for (const child of node.childFrames ?? []) walk(child, false);
    };
    walk(tree, true);
  }

  onFrameAttached(session: CdpSession, frameId: string, parentId: string): void {
    if (!this.#frames.has(frameId)) this.#add(frameId, parentId, session, false);
  }

  onFrameNavigated(session: CdpSession, frame: Cdp.Page.Frame): void {
    // A new document: the old one's iframes went with it. Chromium does not always say so (no
    // frameDetached for them when the new document gets a new RenderFrameHost); the new
    // document's own iframes attach after this event.
    const existing = this.#frames.get(frame.id);
    for (const child of [...(existing?.children ?? [])]) this.#remove(child);
    this.#upsert(session, frame, existing?.crossProcess ?? false);
  }

  onLoading(frameId: string, loading: boolean): void {
    const frame = this.#frames.get(frameId);
    if (frame) frame.loading = loading;
  }

  onNavigatedWithinDocument(frameId: string, url: string): void {
    const frame = this.#frames.get(frameId);
    if (frame) frame.url = url;
  }

  /** `swap` means the frame moved to another process: it lives on, owned by an OOPIF session. */
  onFrameDetached(frameId: string, reason: string): void {
    if (reason === 'swap') return;
    this.#remove(frameId);
  }

  /** An OOPIF target attached: its frame is now hosted by `session`. */
  adoptCrossProcess(frameId: string, parentId: string | undefined, session: CdpSession): void {
    const frame = this.#frames.get(frameId);
    if (frame) {
      frame.session = session;
      frame.crossProcess = true;
    } else {
      this.#add(frameId, parentId, session, true);
    }
  }

  /** The OOPIF session went away: forget the frames only it could see. */
  dropSession(session: CdpSession): void {
    for (const frame of [...this.#frames.values()]) {
      if (frame.session === session && frame.crossProcess) this.#remove(frame.id);
    }
  }

  #upsert(session: CdpSession, frame: Cdp.Page.Frame, crossProcess: boolean): void {
    const record = this.#frames.get(frame.id) ?? this.#add(frame.id, frame.parentId, session, crossProcess);
    record.url = frame.url + (frame.urlFragment ?? '');
    record.name = frame.name ?? '';
    record.loaderId = frame.loaderId;
    record.origin = frame.securityOrigin;
    record.session = session;
    record.crossProcess = crossProcess;
    if (!frame.parentId && !crossProcess) this.#mainId = frame.id;
  }

  #add(id: string, parentId: string | undefined, session: CdpSession, crossProcess: boolean): FrameRecord {
    const record: FrameRecord = {
      id,
      parentId,
      url: '',
      name: '',
      loaderId: '',
      origin: '',
      session,
      crossProcess,
      loading: false,
      children: [],
    };
    this.#frames.set(id, record);
    if (parentId) this.#linkChild(parentId, id);
    return record;
  }

  #linkChild(parentId: string, childId: string): void {
    const parent = this.#frames.get(parentId);
    if (parent && !parent.children.includes(childId)) parent.children.push(childId);
  }

  #remove(frameId: string): void {
    const frame = this.#frames.get(frameId);
    if (!frame) return;
    for (const child of [...frame.children]) this.#remove(child);
    this.#frames.delete(frameId);
    if (frame.parentId) {
      const parent = this.#frames.get(frame.parentId);
      if (parent) parent.children = parent.children.filter((id) => id !== frameId);
    }
    if (this.#mainId === frameId) this.#mainId = undefined;
  }
}

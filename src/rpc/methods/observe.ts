// observe (PROTOCOL.md §6): the accessibility tree with refs, the document's identity, and a new
// current state for the tab. `captureObservation` is also what act uses for its fresh state.
import type { FrameRecord } from '../../browser/frame-tree.ts';
import type { Tab } from '../../browser/tab.ts';
import { ServerError } from '../../errors.ts';
import { diffElements } from '../../observe/diff.ts';
import type { NodeToName } from '../../actions/outcome.ts';
import type { RefRegistry } from '../../observe/refs.ts';
import type { RefTarget } from '../../observe/render.ts';
import type { Prefetch } from '../../observe/settle.ts';
import { hashText } from '../../observe/state-store.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import type { Session } from '../../sessions/session.ts';
import { redactSecrets, redactUrl } from '../../util/redact.ts';
import type { AnyMethodDef } from '../define.ts';
import type { Observation } from '../../wire/index.ts';
import { DEFAULT_MAX_ELEMENTS, observe as observeMethod } from '../../wire/observation.ts';
import { sessionMethod } from './common.ts';

export interface CaptureOptions {
  maxElements?: number;
  includeText?: boolean;
  includeBoxes?: boolean;
  since?: string;
  rootRef?: string;
  /** The state whose ref `rootRef` is (an act's own, consumed by then); the tab's current one by default. */
  rootState?: string;
  signal?: AbortSignal;
  /** The frames' changes taken as an act's input settled (TabReader.settle). */
  prefetched?: Prefetch;
  /**
   * Nodes to give refs of the new state even when its tree has none (an act's blocker): acted on
   * and observed with root_ref like any ref, while the frame they are in keeps its document.
   */
  named?: readonly NodeToName[];
}

/** Observes `frame` of `tab`, issues the new current state, and returns the wire observation. */
export async function captureObservation(
  session: Session,
  tab: Tab,
  frame: FrameRecord,
  options: CaptureOptions = {},
): Promise<Observation> {
  const refs = session.refsFor(tab);
  refs.prune((frameId, loaderId) => tab.frames.get(frameId)?.loaderId === loaderId);
  let subtree: { frameId: string; backendNodeId: number } | undefined;
  if (options.rootRef) {
    const named = options.rootState ? session.states.get(options.rootState) : session.states.current(tab.targetId);
    const target = named?.targetId === tab.targetId ? named.targets.get(options.rootRef) : undefined;
    if (!target) {
      throw new ServerError('invalid_params', `root_ref ${options.rootRef} is not in the tab's current state`, {
        details: { issues: [{ path: 'root_ref', message: 'not a ref of the current state' }] },
      });
    }
    subtree = { frameId: target.frameId, backendNodeId: target.backendNodeId };
  }
  const secrets = session.knownSecrets();
  const snapshot = await session.readerFor(tab).observe({
    tab,
    root: frame,
    refs,
    maxElements: options.maxElements ?? DEFAULT_MAX_ELEMENTS,
    secrets,
    worlds: session.browser.worlds,
    ...(subtree ? { subtree } : {}),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.prefetched ? { prefetched: options.prefetched } : {}),
  });
  // Read the base before issuing: the new state may push it out of the kept window.
  const base = options.since ? session.states.get(options.since) : undefined;
  const record = session.states.issue({
    targetId: tab.targetId,
    frameId: frame.id,
    frames: new Map(snapshot.frames.map((f) => [f.frameId, f])),
    targets: new Map([...snapshot.targets, ...namedTargets(refs, snapshot.targets, options.named ?? [])].map((t) => [t.ref, t])),
    elements: snapshot.elements,
    textHash: hashText(snapshot.text),
    dialogPending: snapshot.dialog !== undefined,
  });
  const observedRoot = snapshot.frames.find((f) => f.frameId === frame.id);
  const loaderId = observedRoot?.loaderId ?? frame.loaderId;
  return {
    state_id: record.stateId,
    session_id: session.id,
    target_id: tab.targetId,
    frame_id: frame.id,
    document: { frame_id: frame.id, loader_id: loaderId, url: redactUrl(frame.url), ready_state: tab.loads.readyState(frame.id, loaderId) },
    url: redactUrl(frame.url),
    title: redactSecrets(snapshot.title || tab.title, secrets),
    tree: snapshot.tree,
    elements: snapshot.elements,
    ...(options.includeText ? { text: snapshot.text } : {}),
    ...(options.includeBoxes
      ? { boxes: Object.fromEntries([...snapshot.boxes].map(([ref, box]) => [ref, box.map((n) => Math.round(n * 10) / 10) as typeof box])) }
      : {}),
    frames: snapshot.frames.map((f) => ({
      frame_id: f.frameId,
      url: redactUrl(f.url),
      status: f.status,
      ...(f.reason ? { reason: f.reason } : {}),
    })),
    truncated: snapshot.truncated,
    ...(snapshot.dialog
      ? {
        dialog: {
          type: snapshot.dialog.type,
          message: redactSecrets(snapshot.dialog.message, secrets),
          ...(snapshot.dialog.defaultPrompt !== undefined ? { default_prompt: snapshot.dialog.defaultPrompt } : {}),
        },
      }
      : {}),
    ...(base && base.targetId === tab.targetId ? { diff: diffElements(base, record) } : {}),
  };
}

export function observeMethods(registry: SessionRegistry): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...observeMethod,
      run: async (session, params, { signal }) => {
        const tab = session.resolveTab(params.target_id);
        const frame = session.resolveFrame(tab, params.frame_id);
        return captureObservation(session, tab, frame, {
          ...(params.max_elements !== undefined ? { maxElements: params.max_elements } : {}),
          ...(params.include_text !== undefined ? { includeText: params.include_text } : {}),
          ...(params.include_boxes !== undefined ? { includeBoxes: params.include_boxes } : {}),
          ...(params.since !== undefined ? { since: params.since } : {}),
          ...(params.root_ref !== undefined ? { rootRef: params.root_ref } : {}),
          signal,
        });
      },
    }),
  ];
}

/** Targets for `named` nodes the snapshot gave no ref, with refs of the tab's registry. */
function namedTargets(refs: RefRegistry, taken: readonly RefTarget[], named: readonly NodeToName[]): RefTarget[] {
  return named
    .filter((node) => !taken.some((t) => t.frameId === node.frameId && t.backendNodeId === node.backendNodeId))
    .map((node) => ({
      ref: refs.refFor(node.frameId, node.loaderId, node.backendNodeId),
      frameId: node.frameId,
      backendNodeId: node.backendNodeId,
      role: node.role,
      name: node.name,
    }));
}

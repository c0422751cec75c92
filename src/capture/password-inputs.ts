// What a screenshot must mask (PROTOCOL.md §11, §13): the password inputs of every document of the
// tab, found with one DOMSnapshot per renderer session (it sees into closed shadow roots, which
// querySelectorAll does not), and the elements that show a known secret (secret-masks.ts).
import type { Cdp } from '../../protocol/generated/cdp.ts';
import type { Tab } from '../browser/tab.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession, SendOptions } from '../cdp/session.ts';
import type { KnownSecret } from '../util/redact.ts';
import type { CallGuard } from './dialog-guard.ts';
import { readSecretEchoes } from './secret-masks.ts';

export interface DocumentPasswords {
  frameId: string;
  /** backendNodeIds of password inputs in the document's light DOM (the stylesheet reaches them). */
  light: number[];
  /** …and inside its shadow roots, open or closed (they need inline styles), and elements that show a secret. */
  shadow: number[];
}

/**
 * PURE: the password inputs of each document of one DOMSnapshot. The snapshot walks the flat tree
 * and marks every node inside an author shadow root with that root's type; slotted light-DOM
 * children stay unmarked, so the mark is exactly "the stylesheet does not reach it".
 */
export function readPasswordInputs(snapshot: Cdp.DOMSnapshot.CaptureSnapshotResult): DocumentPasswords[] {
  const strings = snapshot.strings;
  const text = (index: number | undefined) => (index === undefined || index < 0 ? '' : (strings[index] ?? ''));
  const out: DocumentPasswords[] = [];
  for (const document of snapshot.documents) {
    const nodes = document.nodes;
    const names = nodes.nodeName ?? [];
    const backendIds = nodes.backendNodeId ?? [];
    const attributes = nodes.attributes ?? [];
    const shadowType = new Map<number, string>();
    const rare = nodes.shadowRootType;
    if (rare) { for (let k = 0; k < rare.index.length; k++) shadowType.set(rare.index[k]!, text(rare.value[k])); }
    const found: DocumentPasswords = { frameId: text(document.frameId), light: [], shadow: [] };
    for (let i = 0; i < names.length; i++) {
      // nodeName is upper case in HTML documents and as written in XML ones.
      if (text(names[i]).toUpperCase() !== 'INPUT') continue;
      const list = attributes[i] ?? [];
      let password = false;
      for (let k = 0; k + 1 < list.length; k += 2) {
        // Same test as the selector `input[type=password i]`.
        if (text(list[k]).toLowerCase() === 'type' && text(list[k + 1]).toLowerCase() === 'password') password = true;
      }
      if (!password || backendIds[i] === undefined) continue;
      const root = shadowType.get(i);
      if (root === 'open' || root === 'closed') found.shadow.push(backendIds[i]!);
      else found.light.push(backendIds[i]!);
    }
    if (found.light.length > 0 || found.shadow.length > 0) out.push(found);
  }
  return out;
}

export interface FoundPasswords extends DocumentPasswords {
  /** The session whose renderer hosts the document. */
  session: CdpSession;
}

/**
 * One snapshot per renderer session (the page's and each out-of-process frame's): one snapshot
 * covers every same-process document. A snapshot that fails fails the screenshot (an unmasked
 * image is worse than none), except for an iframe target that went away: it draws nothing now.
 */
export async function findPasswordInputs(
  tab: Tab,
  guard: CallGuard,
  step: SendOptions,
  secrets: readonly KnownSecret[],
): Promise<FoundPasswords[]> {
  const sessions = new Set<CdpSession>([tab.session]);
  for (const frame of tab.frames.list()) sessions.add(frame.session);
  const perSession = await Promise.all(
    [...sessions].map(async (session) => {
      try {
        const snapshot = await guard.run(session.sendWith(step, 'DOMSnapshot.captureSnapshot', { computedStyles: [] }));
        const docs = readPasswordInputs(snapshot);
        // Elements that show a secret get the inline mask (the stylesheet's selector cannot name them).
        for (const [frameId, nodes] of readSecretEchoes(snapshot, secrets)) {
          const doc = docs.find((d) => d.frameId === frameId);
          if (doc) doc.shadow.push(...nodes.filter((node) => !doc.shadow.includes(node) && !doc.light.includes(node)));
          else docs.push({ frameId, light: [], shadow: nodes });
        }
        return docs.map((doc) => ({ ...doc, session }));
      } catch (error) {
        if (session !== tab.session && isCdpError(error) && error.isTargetGone) return [];
        throw error;
      }
    }),
  );
  const seen = new Set<string>();
  return perSession.flat().filter((doc) => !seen.has(doc.frameId) && seen.add(doc.frameId));
}

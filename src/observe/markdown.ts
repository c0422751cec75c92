// The main content of an observed frame as Markdown (observe format "markdown", docs/markdown.md):
// the page writes it from its DOM (src/page/markdown.ts), handed the nodes of the state's refs as
// objects of our isolated world; here the marks it left become the refs with their names, and the
// URLs come back redacted. It reads an observation that was just captured and changes nothing in it.
import type { FrameRecord } from '../browser/frame-tree.ts';
import type { IsolatedWorlds } from '../browser/isolated-worlds.ts';
import { callPage, type MarkdownAnswer, markdownMarks, PageObject } from '../browser/page-module.ts';
import { isCdpError } from '../cdp/errors.ts';
import type { CdpSession } from '../cdp/session.ts';
import { type KnownSecret, redactSecrets, redactUrl } from '../util/redact.ts';
import type { ElementView, RefTarget } from './render.ts';

export interface MarkdownInput {
  worlds: IsolatedWorlds;
  /** The frame whose document is written, that document and its URL. */
  frame: FrameRecord;
  loaderId: string;
  url: string;
  /** The state's refs (those of other frames are not written) and its elements, by ref. */
  targets: Iterable<RefTarget>;
  elements: ReadonlyMap<string, ElementView>;
  /** What redaction hides now (the same as the observation's). */
  secrets: readonly KnownSecret[];
  /** The element to write instead of the main content (root_ref). */
  rootBackendNodeId?: number;
  signal?: AbortSignal;
}

/** A read of the page's Markdown may take what a whole frame's read may (DEFAULT_BUDGET). */
const MARKDOWN_BUDGET_MS = 3_000;

/** The Markdown of the main content of `input.frame`'s document, with the refs of the state. */
export async function readMarkdown(input: MarkdownInput): Promise<string> {
  const { frame, worlds, signal } = input;
  const session = frame.session;
  const executionContextId = await worlds.contextFor(session, frame.id, input.loaderId);
  const send = { timeoutMs: MARKDOWN_BUDGET_MS, ...(signal ? { signal } : {}) };
  // One group for every object this read resolves: released at once, whatever happened.
  const objectGroup = `pagewire-markdown-${crypto.randomUUID()}`;
  const resolve = async (backendNodeId: number): Promise<PageObject | undefined> => {
    try {
      const { object } = await session.sendWith(send, 'DOM.resolveNode', { backendNodeId, executionContextId, objectGroup });
      return object.objectId ? new PageObject(object.objectId) : undefined;
    } catch (error) {
      // The node is gone since it was observed: its ref is left out. Anything else (no answer in
      // time) fails the read rather than leave refs out unsaid.
      if (isCdpError(error) && error.kind === 'protocol') return undefined;
      throw error;
    }
  };
  try {
    const own = [...input.targets].filter((target) => target.frameId === frame.id);
    const [root, ...objects] = await Promise.all([
      input.rootBackendNodeId === undefined ? undefined : resolve(input.rootBackendNodeId),
      ...own.map((target) => resolve(target.backendNodeId)),
    ]);
    if (input.rootBackendNodeId !== undefined && !root) return '';
    const answer = await callPage(
      { session, executionContextId },
      'pageMarkdown',
      [root ?? null, ...objects.filter((o): o is PageObject => o !== undefined)],
      send,
    );
    const passed = own.filter((_, i) => objects[i] !== undefined);
    return redactSecrets(fillMarks(answer, passed, input.elements, input.url), input.secrets);
  } finally {
    releaseGroup(session, objectGroup);
  }
}

function releaseGroup(session: CdpSession, objectGroup: string): void {
  session.send('Runtime.releaseObjectGroup', { objectGroup }).catch(() => {});
}

/**
 * PURE: the page's answer with its marks replaced: a ref node by `[name](@ref)` (a link) or
 * `[role: name (states)](@ref)`, a region's ref by `(@ref)`, a URL by its redacted form (its path
 * alone on the document's own origin; a link to the document itself by its text alone).
 */
export function fillMarks(
  answer: MarkdownAnswer,
  targets: readonly RefTarget[],
  elements: ReadonlyMap<string, ElementView>,
  documentUrl: string,
): string {
  const marks = markdownMarks();
  const here = redactUrl(documentUrl);
  const origin = originOf(here);
  const url = (index: number) => {
    const redacted = redactUrl(answer.urls[index] ?? '');
    return origin && originOf(redacted) === origin ? redacted.slice(origin.length) || '/' : redacted;
  };
  const item = new RegExp(`([${marks.control}${marks.region}])(\\d+)\\1`, 'g');
  // A link to the document itself (a fragment, once redacted) says nothing its text does not.
  const linkHere = new RegExp(`\\[((?:\\\\.|[^[\\]\\\\])*)\\]\\(${marks.url}(\\d+)${marks.url}\\)`, 'g');
  return answer.text
    .replace(linkHere, (whole, label: string, digits: string) => (redactUrl(answer.urls[Number(digits)] ?? '') === here ? label : whole))
    .replace(new RegExp(`${marks.url}(\\d+)${marks.url}`, 'g'), (_, digits: string) => url(Number(digits)))
    .replace(item, (_, kind: string, digits: string) => {
      const target = targets[Number(digits)];
      if (!target) return '';
      if (kind === marks.region) return `(${target.ref})`;
      return `[${controlLabel(target, elements.get(target.ref))}](${target.ref})`;
    });
}

function originOf(url: string): string | undefined {
  return /^https?:\/\/[^/]+/.exec(url)?.[0];
}

/** Roles that read as links: a link, and the publishing roles that are links. */
const LINK_ROLES = new Set(['link', 'doc-backlink', 'doc-biblioref', 'doc-glossref', 'doc-noteref']);

/** How an element with a ref reads inline: a link by its name, anything else by its role too. */
function controlLabel(target: RefTarget, element: ElementView | undefined): string {
  const name = escapeLabel(target.name.replace(/\s+/g, ' ').trim());
  if (LINK_ROLES.has(target.role)) return name || 'link';
  const states = element ? stateWords(element) : [];
  const said = states.length > 0 ? ` (${states.join(', ')})` : '';
  return name ? `${target.role}: ${name}${said}` : `${target.role}${said}`;
}

function stateWords(element: ElementView): string[] {
  const words: string[] = [];
  if (element.checked !== undefined) words.push(element.checked === 'mixed' ? 'mixed' : element.checked ? 'checked' : 'unchecked');
  if (element.selected) words.push('selected');
  if (element.expanded !== undefined) words.push(element.expanded ? 'expanded' : 'collapsed');
  if (element.disabled) words.push('disabled');
  if (element.has_value) words.push('has value');
  return words;
}

function escapeLabel(text: string): string {
  return text.replace(/[[\]]/g, (c) => `\\${c}`);
}

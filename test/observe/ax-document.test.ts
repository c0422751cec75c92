// ax-document.ts: patching a kept accessibility tree with re-read parts (pure).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { axDocument, axNodes, patchAxDocument } from '../../src/observe/ax-document.ts';

type AXNode = Cdp.Accessibility.AXNode;

const s = suite('ax-document');

function node(nodeId: string, role: string, name: string, parentId: string | undefined, childIds: string[], extra: Partial<AXNode> = {}): AXNode {
  return {
    nodeId,
    ignored: false,
    role: { type: 'role', value: role },
    name: { type: 'computedString', value: name, sources: [{ type: 'contents', value: { type: 'computedString', value: name } }] },
    ...(parentId === undefined ? {} : { parentId }),
    childIds,
    backendDOMNodeId: Number(nodeId),
    ...extra,
  };
}

// root(1) → list(2) → [item(3) → text(4), item(5) → text(6)]
const base = [
  node('1', 'RootWebArea', 'Page', undefined, ['2']),
  node('2', 'list', '', '1', ['3', '5']),
  node('3', 'listitem', 'One', '2', ['4']),
  node('4', 'StaticText', 'One', '3', []),
  node('5', 'listitem', 'Two', '2', ['6']),
  node('6', 'StaticText', 'Two', '5', []),
];

const names = (nodes: AXNode[]) => nodes.map((n) => `${n.nodeId}:${String(n.name?.value ?? '')}`).sort();

s('keeps the nodes without name sources or value text', () => {
  const doc = axDocument([...base, node('7', 'textbox', 'Field', '1', [], { value: { type: 'string', value: 'typed secret' } })])!;
  assert.ok(doc);
  assert.is(doc.rootId, '1');
  assert.equal(doc.nodes.get('3')!.name!.sources, [{ type: 'contents', value: { type: 'computedString', value: 'One' } }], 'only the source used');
  assert.is(doc.nodes.has('7'), false, 'not reachable from the root: dropped');
  const withField = axDocument([{ ...base[0]!, childIds: ['2', '7'] }, ...base.slice(1), node('7', 'textbox', 'Field', '1', [], { value: { type: 'string', value: 'typed secret' } })])!;
  assert.not.ok(JSON.stringify([...withField.nodes.values()]).includes('typed secret'), 'a value is kept only as present');
  assert.is(withField.nodes.get('7')!.value!.value, '•');
});

s('replaces a changed subtree and takes ancestors as they are now', () => {
  const doc = axDocument(base)!;
  const patched = patchAxDocument(doc, [
    {
      backendNodeId: 3,
      subtree: [node('3', 'listitem', 'Uno', '2', ['8']), node('8', 'StaticText', 'Uno', '3', [])],
      relatives: [node('3', 'listitem', 'Uno', '2', ['8']), node('2', 'list', 'Numbers', '1', ['3', '5']), node('5', 'listitem', 'Two', '2', ['6']), node('1', 'RootWebArea', 'Page', undefined, ['2'])],
    },
  ])!;
  assert.ok(patched);
  assert.equal(names(axNodes(patched)), ['1:Page', '2:Numbers', '3:Uno', '5:Two', '6:Two', '8:Uno']);
  assert.is(patched.nodes.has('4'), false, 'the old text node is gone');
  assert.is(doc.nodes.get('3')!.name!.value, 'One', 'the kept document is not changed');
});

s('a sibling listed without children keeps the children it had', () => {
  const doc = axDocument(base)!;
  const patched = patchAxDocument(doc, [
    {
      backendNodeId: 3,
      subtree: [node('3', 'listitem', 'One', '2', ['4']), node('4', 'StaticText', 'One', '3', [])],
      relatives: [node('2', 'list', '', '1', ['3', '5']), { ...node('5', 'listitem', 'Two', '2', []), childIds: undefined }, node('1', 'RootWebArea', 'Page', undefined, ['2'])],
    },
  ])!;
  assert.equal(patched.nodes.get('5')!.childIds, ['6']);
  assert.ok(patched.nodes.has('6'));
});

s("an ignored node's extra entry in its parent's children is dropped", () => {
  const doc = axDocument(base)!;
  const ignored = { ...node('5', 'none', '', '2', ['6', '9']), ignored: true };
  const patched = patchAxDocument(doc, [
    {
      backendNodeId: 5,
      subtree: [ignored, node('6', 'StaticText', 'Two', '5', []), node('9', 'StaticText', 'Three', '5', [])],
      // Chromium lists the asked-about ignored node first once more.
      relatives: [ignored, node('2', 'list', '', '1', ['5', '3', '5']), node('1', 'RootWebArea', 'Page', undefined, ['2'])],
    },
  ])!;
  assert.equal(patched.nodes.get('2')!.childIds, ['3', '5']);
  assert.equal(names(axNodes(patched)), ['1:Page', '2:', '3:One', '4:One', '5:', '6:Two', '9:Three']);
});

s('a patch that does not fit is refused (the caller reads everything)', () => {
  const doc = axDocument(base)!;
  const root = node('1', 'RootWebArea', 'Page', undefined, ['2']);
  assert.is(patchAxDocument(doc, [{ backendNodeId: 3, subtree: [], relatives: [root] }]), undefined, 'no node for the element');
  assert.is(
    patchAxDocument(doc, [{ backendNodeId: 3, subtree: [node('3', 'listitem', 'One', '2', ['4'])], relatives: [node('2', 'list', '', '1', ['3', '5'])] }]),
    undefined,
    'relatives that do not reach the root',
  );
  assert.is(
    patchAxDocument(doc, [{ backendNodeId: 3, subtree: [node('3', 'listitem', 'One', '2', ['404'])], relatives: [root] }]),
    undefined,
    'a child that is nowhere',
  );
});

s.run();

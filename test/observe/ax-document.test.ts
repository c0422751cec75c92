// ax-document.ts: patching a kept accessibility tree with re-read parts (pure).
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { axDocument, axNodes, patchAxDocument } from '../../src/observe/ax-document.ts';

type AXNode = Cdp.Accessibility.AXNode;

const s = suite('ax-document');

function node(
  nodeId: string,
  role: string,
  name: string,
  parentId: string | undefined,
  childIds: string[],
  extra: Partial<AXNode> = {},
): AXNode {
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
  assert.equal(
    doc.nodes.get('3')!.name!.sources,
    [{ type: 'contents', value: { type: 'computedString', value: 'One' } }],
    'only the source used',
  );
  assert.is(doc.nodes.has('7'), false, 'not reachable from the root: dropped');
  const withField = axDocument([
    { ...base[0]!, childIds: ['2', '7'] },
    ...base.slice(1),
    node('7', 'textbox', 'Field', '1', [], { value: { type: 'string', value: 'typed secret' } }),
  ])!;
  assert.not.ok(JSON.stringify([...withField.nodes.values()]).includes('typed secret'), 'a value is kept only as present');
  assert.is(withField.nodes.get('7')!.value!.value, '•');
});

s('replaces a changed subtree and takes ancestors as they are now', () => {
  const doc = axDocument(base)!;
  const patched = patchAxDocument(doc, [
    {
      backendNodeId: 3,
      subtree: [node('3', 'listitem', 'Uno', '2', ['8']), node('8', 'StaticText', 'Uno', '3', [])],
      relatives: [
        node('3', 'listitem', 'Uno', '2', ['8']),
        node('2', 'list', 'Numbers', '1', ['3', '5']),
        node('5', 'listitem', 'Two', '2', ['6']),
        node('1', 'RootWebArea', 'Page', undefined, ['2']),
      ],
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
      relatives: [
        node('2', 'list', '', '1', ['3', '5']),
        { ...node('5', 'listitem', 'Two', '2', []), childIds: undefined },
        node('1', 'RootWebArea', 'Page', undefined, ['2']),
      ],
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

s('a relative that lost a child drops that child and what hangs off it', () => {
  const doc = axDocument(base)!;
  const patched = patchAxDocument(doc, [
    {
      backendNodeId: 3,
      subtree: [node('3', 'listitem', 'One', '2', ['4']), node('4', 'StaticText', 'One', '3', [])],
      relatives: [
        node('1', 'RootWebArea', 'Page', undefined, ['2']),
        node('2', 'list', '', '1', ['3']),
        node('3', 'listitem', 'One', '2', ['4']),
      ],
    },
  ])!;
  assert.equal(names(axNodes(patched)), ['1:Page', '2:', '3:One', '4:One']);
  assert.is(patched.nodes.size, 4);
  assert.is(doc.nodes.size, 6, 'the kept document still has them');
});

s('many patches in a row (layered, then flattened) read the same as the page read whole', () => {
  // root → list → 600 × (item → text); each round renames a few items, as a page read whole would show them.
  const items = 600;
  const payload = (labels: string[]) => [
    node('1', 'RootWebArea', 'Page', undefined, ['2']),
    node('2', 'list', '', '1', labels.map((_, i) => String(10 + 2 * i))),
    ...labels.flatMap((label, i) => [
      node(String(10 + 2 * i), 'listitem', label, '2', [String(11 + 2 * i)]),
      node(String(11 + 2 * i), 'StaticText', label, String(10 + 2 * i), []),
    ]),
  ];
  const labels = Array.from({ length: items }, (_, i) => `item ${i}`);
  let doc = axDocument(payload(labels))!;
  let seed = 7;
  const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
  for (let round = 0; round < 150; round++) {
    const changed = Array.from({ length: 1 + Math.floor(random() * 3) }, () => Math.floor(random() * items));
    for (const i of changed) labels[i] = `item ${i} v${round}`;
    const now = payload(labels);
    const byId = new Map(now.map((n) => [n.nodeId, n]));
    const patches = [...new Set(changed)].map((i) => {
      const id = String(10 + 2 * i);
      return {
        backendNodeId: Number(id),
        subtree: [byId.get(id)!, byId.get(String(11 + 2 * i))!],
        relatives: [byId.get('1')!, byId.get('2')!, byId.get(id)!],
      };
    });
    const patched = patchAxDocument(doc, patches);
    assert.ok(patched, `round ${round} patches`);
    const whole = axDocument(now)!;
    assert.equal(names(axNodes(patched!)), names(axNodes(whole)), `round ${round} equals a whole read`);
    assert.is(patched!.nodes.size, whole.nodes.size);
    doc = patched!;
  }
});

s('a patch that does not fit is refused (the caller reads everything)', () => {
  const doc = axDocument(base)!;
  const root = node('1', 'RootWebArea', 'Page', undefined, ['2']);
  assert.is(patchAxDocument(doc, [{ backendNodeId: 3, subtree: [], relatives: [root] }]), undefined, 'no node for the element');
  assert.is(
    patchAxDocument(doc, [{
      backendNodeId: 3,
      subtree: [node('3', 'listitem', 'One', '2', ['4'])],
      relatives: [node('2', 'list', '', '1', ['3', '5'])],
    }]),
    undefined,
    'relatives that do not reach the root',
  );
  assert.is(
    patchAxDocument(doc, [{ backendNodeId: 3, subtree: [node('3', 'listitem', 'One', '2', ['404'])], relatives: [root] }]),
    undefined,
    'a child that is nowhere',
  );
  assert.is(
    patchAxDocument(doc, [{
      backendNodeId: 3,
      subtree: [node('3', 'listitem', 'One', '2', ['4'])],
      relatives: [root, node('2', 'list', '', '1', ['3', '5'])],
    }]),
    undefined,
    'its old child 4 is gone from the part read, but nothing said so',
  );
});

s.run();

// buildAxTree on hand-made getFullAXTree payloads shaped like Chromium's: ignored nodes spliced
// out, and names that would carry an input value (PROTOCOL.md §11) rebuilt without it.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { type AxChild, type AxViewNode, buildAxTree, buildAxTreeFrom } from '../../src/observe/ax-tree.ts';

type AXNode = Cdp.Accessibility.AXNode;
type Source = Cdp.Accessibility.AXValueSource;

const s = suite('ax-tree');

interface Spec {
  role: string;
  name?: string;
  /** Where Chromium took the name from; undefined: the payload carries no sources (a slimmed node). */
  source?: Source;
  children?: Spec[];
  ignored?: boolean;
  value?: string;
  editable?: boolean;
  backend?: number;
}

let nextId = 1;

/** Flattens specs into a payload (nodeIds and backend ids in document order). */
function payload(root: Spec, withSources = true): AXNode[] {
  const out: AXNode[] = [];
  const add = (spec: Spec, parentId?: string): string => {
    const nodeId = String(nextId++);
    const node: AXNode = {
      nodeId,
      ignored: spec.ignored ?? false,
      role: { type: 'role', value: spec.role },
      backendDOMNodeId: spec.backend ?? nextId + 1000,
    };
    if (parentId !== undefined) node.parentId = parentId;
    if (spec.name !== undefined) {
      node.name = { type: 'computedString', value: spec.name };
      if (withSources) node.name.sources = spec.source ? [{ type: 'attribute', attribute: 'title', superseded: true }, spec.source] : [];
    }
    if (spec.value !== undefined) node.value = { type: 'string', value: spec.value };
    if (spec.editable) node.properties = [{ name: 'editable', value: { type: 'token', value: 'plaintext' } }];
    out.push(node);
    node.childIds = (spec.children ?? []).map((child) => add(child, nodeId));
    return nodeId;
  };
  add(root);
  return out;
}

const contents = (value: string): Source => ({ type: 'contents', value: { type: 'computedString', value } });
const ariaLabel = (value: string): Source => ({ type: 'attribute', attribute: 'aria-label', value: { type: 'computedString', value } });
const labelledBy = (value: string, ...backends: number[]): Source => ({
  type: 'relatedElement',
  attribute: 'aria-labelledby',
  value: { type: 'computedString', value },
  attributeValue: { type: 'idrefList', value: '', relatedNodes: backends.map((backendDOMNodeId) => ({ backendDOMNodeId })) },
});
const labelFor = (value: string, backend: number): Source => ({
  type: 'relatedElement',
  nativeSource: 'labelwrapped',
  value: { type: 'computedString', value },
  nativeSourceValue: { type: 'nodeList', relatedNodes: [{ backendDOMNodeId: backend, text: value }] },
});
const text = (value: string): Spec => ({ role: 'StaticText', name: value, source: contents(value) });
/** An <input type=text> holding `value`: its content is an editable text node. */
const field = (name: string, value: string, backend?: number): Spec => ({
  role: 'textbox',
  name,
  source: ariaLabel(name),
  value,
  editable: true,
  backend,
  children: [{ role: 'generic', editable: true, children: [text(value)] }],
});
const select = (name: string, chosen: string): Spec => ({
  role: 'combobox',
  name,
  source: ariaLabel(name),
  value: chosen,
  children: [{ role: 'MenuListPopup', children: [{ role: 'option', name: chosen, source: contents(chosen) }] }],
});

/** A node's children in a whole tree, where none is an unread placeholder (those come of prefix reads). */
function childViews(node: AxViewNode): AxViewNode[] {
  return node.children.map((child) => {
    if (child.unread) throw new Error('a whole tree has no unread part');
    return child;
  });
}

function find(tree: AxViewNode | undefined, role: string): AxViewNode {
  const stack = tree ? [tree] : [];
  while (stack.length) {
    const node = stack.shift()!;
    if (node.role === role) return node;
    stack.push(...childViews(node));
  }
  throw new Error(`no ${role}`);
}

const doc = (...children: Spec[]): Spec => ({ role: 'RootWebArea', name: 'Page', children });

s('ignored nodes are spliced out, inline text boxes dropped; a name from contents is marked so', () => {
  const tree = buildAxTree(
    payload(
      doc({
        role: 'none',
        ignored: true,
        children: [{
          role: 'button',
          name: 'Go',
          source: contents('Go'),
          children: [{ ...text('Go'), children: [{ role: 'InlineTextBox', name: 'Go' }] }],
        }],
      }),
    ),
  );
  const button = find(tree, 'button');
  assert.is(tree!.children[0], button);
  assert.is(button.nameFromContents, true);
  assert.equal(childViews(button).map((c) => c.role), ['StaticText']);
  assert.is(find(tree, 'RootWebArea').nameFromContents, undefined);
});

s('a cell around a text field with a typed value: the name keeps the text, not the value', () => {
  const nodes = payload(
    doc({
      role: 'row',
      children: [{ role: 'cell', name: 'Qty 4242', source: contents('Qty 4242'), children: [text('Qty '), field('Quantity', '4242')] }],
    }),
  );
  const cell = find(buildAxTree(nodes), 'cell');
  assert.is(cell.name, 'Qty');
  assert.is(cell.nameFromContents, true);
  assert.is(find(buildAxTree(nodes), 'textbox').name, 'Quantity', 'the field keeps its own name');
});

s('a cell around a select: its name (the chosen option) is dropped; a button around a field keeps its label', () => {
  const tree = buildAxTree(
    payload(doc(
      { role: 'cell', name: 'Paid', source: contents('Paid'), children: [select('Status', 'Paid')] },
      { role: 'button', name: 'Apply TYPED', source: contents('Apply TYPED'), children: [text('Apply '), field('Inner', 'TYPED')] },
    )),
  );
  assert.is(find(tree, 'cell').name, '');
  assert.is(find(tree, 'button').name, 'Apply');
});

s("descendants named otherwise count with their name; names without a value inside stay Chromium's", () => {
  const tree = buildAxTree(
    payload(doc(
      {
        role: 'cell',
        name: 'Edit row 1 ',
        source: contents('Edit row 1 '),
        children: [{ role: 'button', name: 'Edit row 1', source: ariaLabel('Edit row 1'), children: [text('Edit')] }, field('Note', 'x')],
      },
      { role: 'cell', name: 'Exactly  as   Chromium', source: contents('Exactly  as   Chromium'), children: [text('Exactly as Chromium')] },
      { role: 'group', name: 'Address', source: ariaLabel('Address'), children: [field('Street', 'Main St 1')] },
    )),
  );
  const [first, second] = childViews(tree!);
  assert.is(first!.name, 'Edit row 1');
  assert.is(second!.name, 'Exactly  as   Chromium');
  assert.is(find(tree, 'group').name, 'Address');
});

s("a <label> around two controls: the one it names does not get the other's value", () => {
  const label: Spec = {
    role: 'LabelText',
    name: '',
    backend: 500,
    children: [
      text('Deliver '),
      { ...select('', 'Tomorrow'), name: 'Deliver via TYPED-COURIER', source: labelFor('Deliver  via TYPED-COURIER', 500) },
      text(' via '),
      field('', 'TYPED-COURIER'),
    ],
  };
  const tree = buildAxTree(payload(doc(label)));
  assert.is(find(tree, 'combobox').name, 'Deliver via');
  // A label around its one control (the usual case) keeps Chromium's name.
  const usual = buildAxTree(
    payload(
      doc({
        role: 'LabelText',
        name: '',
        backend: 501,
        children: [text('Remark '), { ...field('Remark', 'typed'), source: labelFor('Remark', 501) }],
      }),
    ),
  );
  assert.is(find(usual, 'textbox').name, 'Remark');
});

s('aria-labelledby pointing at fields (the labelled one included) leaves their values out', () => {
  const tree = buildAxTree(
    payload(doc(
      { ...field('SELF query', 'SELF', 700), source: labelledBy('SELF query', 700, 701) },
      { role: 'generic', backend: 701, children: [text('query')] },
      { role: 'button', name: 'LEAK now', source: labelledBy('LEAK now', 702, 703), children: [text('Go')] },
      field('', 'LEAK', 702),
      { role: 'generic', backend: 703, children: [text('now')] },
    )),
  );
  assert.is(find(tree, 'textbox').name, 'query');
  assert.is(find(tree, 'button').name, 'now');
});

s('without name sources (a node kept without them) the role decides: cells and labels are still rebuilt', () => {
  const nodes = payload(
    doc(
      { role: 'cell', name: 'Note TYPED', children: [text('Note '), field('Note', 'TYPED')] },
      {
        role: 'LabelText',
        name: '',
        children: [text('Deliver '), { ...select('', 'Tomorrow'), name: 'Deliver via TYPED2' }, text(' via '), field('', 'TYPED2')],
      },
      { role: 'group', name: 'Address', children: [field('Street', 'Main St 1')] },
    ),
    false,
  );
  const tree = buildAxTree(nodes);
  assert.is(find(tree, 'cell').name, 'Note');
  assert.is(find(tree, 'cell').nameFromContents, true);
  assert.is(find(tree, 'combobox').name, 'Deliver via');
  assert.is(find(tree, 'group').name, 'Address');
  assert.is(find(tree, 'group').nameFromContents, undefined);
});

s('a cycle of aria-labelledby does not loop', () => {
  const tree = buildAxTree(
    payload(doc(
      { role: 'button', name: 'a b', backend: 800, source: labelledBy('a b', 801), children: [field('x', 'v')] },
      { role: 'button', name: 'b a', backend: 801, source: labelledBy('b a', 800), children: [field('y', 'w')] },
    )),
  );
  assert.equal(childViews(tree!).map((c) => [c.role, c.name]), [['button', ''], ['button', '']]);
});

s('a document read in part keeps the views of subtrees read whole, and of nodes none of whose children was read until one is', () => {
  const nodes = payload({
    role: 'RootWebArea',
    name: 'Invoices',
    children: [
      {
        role: 'row',
        name: 'Row 1',
        source: ariaLabel('Row 1'),
        children: [{ role: 'button', name: 'Edit row 1', source: ariaLabel('Edit row 1') }],
      },
      {
        role: 'row',
        name: 'Row 2',
        source: ariaLabel('Row 2'),
        children: [{ role: 'button', name: 'Edit row 2', source: ariaLabel('Edit row 2') }],
      },
      {
        role: 'row',
        name: 'Row 3',
        source: ariaLabel('Row 3'),
        children: [
          { role: 'button', name: 'Edit row 3', source: ariaLabel('Edit row 3') },
          { role: 'button', name: 'Drop row 3', source: ariaLabel('Drop row 3') },
        ],
      },
    ],
  });
  const [root, row1, , row2, button2, row3, , drop3] = nodes as AXNode[] as [
    AXNode,
    AXNode,
    AXNode,
    AXNode,
    AXNode,
    AXNode,
    AXNode,
    AXNode,
  ];
  const all = new Map(nodes.map((node) => [node.nodeId, node]));
  const read = new Map(all);
  read.delete(button2.nodeId); // the prefix read stopped before row 2's button…
  read.delete(drop3.nodeId); // …and read only row 3's first button
  const reuse = new WeakMap<AXNode, AxChild[]>();
  const first = buildAxTreeFrom(read, root, reuse, true)!;
  const [firstRow1, firstRow2, firstRow3] = first.children as AxViewNode[];
  assert.ok(firstRow2!.children[0]?.unread, 'row 2 holds a placeholder');
  assert.ok(reuse.has(row1), 'row 1 was read whole');
  assert.ok(reuse.has(row2), 'row 2 had none of its children read');
  assert.not.ok(reuse.has(row3), 'row 3 was read in part: reading on changes it');
  assert.not.ok(reuse.has(root), 'nor the document, which holds them');

  // Built again from the same read (after a change elsewhere): nothing unchanged is built again.
  const again = buildAxTreeFrom(read, root, reuse, true)!;
  assert.is(again.children[0], firstRow1, 'row 1: the same view');
  assert.is(again.children[1], firstRow2, 'row 2: the same view while its children are still unread');
  assert.is.not(again.children[2], firstRow3, 'row 3: built again');
  assert.not.ok(reuse.has(root), 'a document holding a row not read whole is never kept as whole');

  const further = buildAxTreeFrom(all, root, reuse, true)!;
  const [row1Again, row2Again, row3Again] = further.children as AxViewNode[];
  assert.is(row1Again, firstRow1, 'the same view, not built again');
  assert.equal(row2Again!.children.map((c) => (c.unread ? 'unread' : c.name)), ['Edit row 2']);
  assert.equal(row3Again!.children.map((c) => (c.unread ? 'unread' : c.name)), ['Edit row 3', 'Drop row 3']);
  assert.ok(reuse.has(root), 'read whole now');
});

s.run();

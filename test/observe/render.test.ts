// The tree text that render() writes (docs/tree-format.md), on hand-built stitched trees: which lines
// are left out or folded, which siblings share a line, what state words say, how selects, frames
// and long text are written, and that no value reaches the tree or the text.
import fc from 'fast-check';
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { AxStates } from '../../src/observe/ax-tree.ts';
import type { Box, NodeFacts } from '../../src/observe/page-facts.ts';
import { render as renderOutcome, type RenderContext, type Rendered, type StitchedNode } from '../../src/observe/render.ts';

const s = suite('render');

let nextBackendId = 1;

interface NodeOptions {
  /** The element's tag, as the page's facts give it (a `generic` is a <div> unless told). */
  tag?: string;
  states?: AxStates;
  nameFromContents?: boolean;
  frameId?: string;
  childFrame?: StitchedNode['childFrame'];
}

function n(role: string, name = '', children: StitchedNode[] = [], options: NodeOptions = {}): StitchedNode {
  const node: StitchedNode = {
    role,
    name,
    backendNodeId: nextBackendId++,
    states: options.states ?? {},
    children,
    frameId: options.frameId ?? 'MAIN',
  };
  if (options.nameFromContents) node.nameFromContents = true;
  if (options.childFrame) node.childFrame = options.childFrame;
  if (options.tag) tags.set(node.backendNodeId!, options.tag);
  return node;
}

/** backendNodeId → tag, for the nodes built with one. */
const tags = new Map<number, string>();
/** backendNodeId → the layout box of a text node, for the text laid out in a test. */
const boxes = new Map<number, Box>();
/** A text node laid out at `box`. */
const placed = (value: string, box: Box) => {
  const node = text(value);
  boxes.set(node.backendNodeId!, box);
  return node;
};

const text = (value: string) => n('StaticText', value, [], { nameFromContents: true });
const page = (...children: StitchedNode[]) => n('RootWebArea', 'Page', children);
/** A cell as Chromium gives it: named from its contents. */
const cell = (name: string, ...children: StitchedNode[]) => n('cell', name, children, { nameFromContents: true });
// Chromium's options in a <select> popup hold no text nodes.
const option = (name: string, states: AxStates = {}) =>
  n('option', name, [], { nameFromContents: true, states: { selected: false, ...states } });
/** A <select>: a combobox holding its options in a popup, with its chosen option as its value. */
const select = (name: string, options: StitchedNode[]) =>
  n('combobox', name, [n('MenuListPopup', '', options)], { states: { expanded: false, hasValue: true, focusable: true } });

/** A whole tree (no unread part) always renders. */
function render(root: StitchedNode, context: RenderContext): Rendered {
  const outcome = renderOutcome(root, context);
  if ('needs' in outcome) throw new Error(`a whole tree needs frame ${outcome.needs.frameId} read further`);
  return outcome.rendered;
}

function context(overrides: Partial<RenderContext> = {}): RenderContext {
  const refs = new Map<string, string>();
  const facts: NodeFacts = { clickable: false, ownPointer: false, dragAndDrop: false, nodeName: 'DIV', box: [0, 0, 10, 10] };
  return {
    maxElements: 150,
    secrets: [],
    facts: (_frameId, backendNodeId) => {
      const tag = tags.get(backendNodeId);
      return tag ? { ...facts, nodeName: tag } : facts;
    },
    textBox: (_frameId, backendNodeId) => boxes.get(backendNodeId),
    inViewport: () => true,
    refFor: (frameId, backendNodeId) => {
      const key = `${frameId}:${backendNodeId}`;
      if (!refs.has(key)) refs.set(key, `@${refs.size + 1}`);
      return refs.get(key)!;
    },
    ...overrides,
  };
}

s('one node a line, one space a level, text as a quoted string', () => {
  const out = render(
    page(
      n('heading', 'Title', [text('Title')], { nameFromContents: true, states: { level: 1 } }),
      n('form', '', [n('button', 'Go', [text('Go')], { nameFromContents: true })]),
      text('after'),
    ),
    context(),
  );
  assert.is(out.tree, 'heading "Title" [level=1]\nform\n button "Go" @1\n"after"');
});

s('a container named from its contents shows no name above rendered children, and a nameless one folds onto its single line', () => {
  const row = n('row', '', [
    cell('Invoice 10001', text('Invoice 10001')),
    cell('Edit row 1', n('button', 'Edit row 1', [text('Edit')])),
    cell('Details', n('link', 'Details', [text('Details')], { nameFromContents: true })),
  ]);
  const out = render(page(n('table', '', [row])), context());
  assert.is(out.tree, 'table\n row\n  "Invoice 10001"\n  button "Edit row 1" @1\n  link "Details" @2');
  assert.not.match(out.tree, /cell/);
});

s('a cell with text and a control keeps its line, without its computed name', () => {
  const out = render(
    page(n('row', '', [cell('Qty 4', text('Qty'), n('spinbutton', 'Quantity', [], { states: { hasValue: true, focusable: true } }))])),
    context(),
  );
  assert.is(out.tree, 'row\n cell\n  "Qty"\n  spinbutton "Quantity" [has_value] @1');
});

s('an empty cell keeps its line (it holds its column); a header holding only text stays a header', () => {
  const out = render(
    page(n('row', '', [n('columnheader', 'Name', [text('Name')], { nameFromContents: true }), n('cell', ''), cell('x', text('x'))])),
    context(),
  );
  assert.is(out.tree, 'row\n columnheader "Name"\n cell\n "x"');
});

s('a name set by the page (aria-label) is kept above its children', () => {
  const out = render(page(n('group', 'Shipping', [n('textbox', 'Street', [], { states: { focusable: true } })])), context());
  assert.is(out.tree, 'group "Shipping"\n textbox "Street" @1');
});

s('a cell whose computed name holds the chosen option (its value) does not show it', () => {
  const status = select('Status for row 1', [option('Pending'), option('Paid', { selected: true }), option('Overdue')]);
  const out = render(page(n('row', '', [cell('Paid', status)])), context());
  assert.is(out.tree, 'row\n combobox "Status for row 1" [options: "Pending", "Paid", "Overdue"] @1');
  assert.not.match(out.tree, /selected/);
  assert.is(out.tree.match(/Paid/g)?.length, 1, 'only as one of the options');
});

s('a select: options on its line, no collapsed or has_value (the elements list keeps them), the same options later by reference', () => {
  const first = select('Status 1', [option('Pending'), option('Paid', { selected: true })]);
  const second = select('Status 2', [option('Pending', { selected: true }), option('Paid')]);
  const other = select('Size', [option('S'), option('M')]);
  const out = render(page(first, second, other), context());
  assert.is(
    out.tree,
    'combobox "Status 1" [options: "Pending", "Paid"] @1\ncombobox "Status 2" [options @1] @2\ncombobox "Size" [options: "S", "M"] @3',
  );
  assert.equal(
    out.elements.map((e) => [e.expanded, e.has_value]),
    [[false, true], [false, true], [false, true]],
  );
});

s('a select whose options have a state or groups keeps a line per option; an editable combobox says collapsed', () => {
  const out = render(
    page(
      select('Plan', [option('Free'), option('Pro', { disabled: true })]),
      n('combobox', 'Search', [], { states: { editable: true, focusable: true, expanded: false } }),
    ),
    context(),
  );
  assert.is(out.tree, 'combobox "Plan" @1\n option "Free"\n option "Pro" [disabled]\ncombobox "Search" [collapsed] @2');
});

s('default states are not spelled out: unchecked; checked and mixed are', () => {
  const box = (name: string, checked: boolean | 'mixed') => n('checkbox', name, [], { states: { checked, focusable: true } });
  const out = render(
    page(box('A', false), box('B', true), box('C', 'mixed'), n('radio', 'D', [], { states: { checked: false } })),
    context(),
  );
  assert.is(out.tree, 'checkbox "A" @1\ncheckbox "B" [checked] @2\ncheckbox "C" [mixed] @3\nradio "D" @4');
  assert.equal(out.elements.map((e) => e.checked), [false, true, 'mixed', false], 'elements keep every state');
});

s('lists: no level on items (the indentation says it), bullets dropped, an item holding one line folds', () => {
  const item = (...children: StitchedNode[]) => n('listitem', '', [n('ListMarker', '• '), ...children], { states: { level: 1 } });
  const out = render(
    page(n('list', '', [item(n('link', 'Home', [text('Home')], { nameFromContents: true })), item(text('Ship to'), n('textbox', 'City'))])),
    context(),
  );
  assert.is(out.tree, 'list\n link "Home" @1\n listitem\n  "Ship to"\n  textbox "City" @2');
  const numbered = render(page(n('list', '', [n('listitem', '', [n('ListMarker', '1. '), text('First')])])), context());
  assert.is(numbered.tree, 'list\n listitem\n  ListMarker "1."\n  "First"');
});

s('an iframe line carries no frame id (elements have it); an unreadable one says why', () => {
  const frame = n('Iframe', 'Pay', [n('RootWebArea', 'Inner', [n('button', 'OK', [], { frameId: 'CHILD' })], { frameId: 'CHILD' })], {
    childFrame: { frameId: 'CHILD', status: 'observed' },
  });
  const dead = n('Iframe', 'Ads', [], { childFrame: { frameId: 'DEAD', status: 'unavailable', reason: 'timed out' } });
  const out = render(page(frame, dead), context());
  assert.is(out.tree, 'iframe "Pay"\n button "OK" @1\niframe "Ads" [unavailable: timed out]');
  assert.is(out.elements[0]!.frame_id, 'CHILD');
});

s('long text lines keep their start and end (at word boundaries); text has all of it', () => {
  const long = 'The eastern embankment, which had carried the old toll house, was much admired in the dry summer';
  const out = render(page(text(long), n('link', 'of that year', [text('of that year')], { nameFromContents: true })), context());
  const line = out.tree.split('\n')[0]!;
  assert.is(line, '"The eastern embankment, which had … was much admired in the dry summer"');
  assert.ok(JSON.parse(line).length <= 80);
  assert.is(out.text, `${long}\nof that year`);
  const short = render(page(text('nothing yet')), context());
  assert.is(short.tree, '"nothing yet"');
});

s('a label before the control it names is not repeated; text a name already says is not either', () => {
  const out = render(
    page(
      n('paragraph', '', [n('LabelText', '', [text('Email')]), n('textbox', 'Email')]),
      n('button', 'Sign up now', [text('Sign up '), n('strong', '', [text('now')])], { nameFromContents: true }),
    ),
    context(),
  );
  assert.is(out.tree, 'textbox "Email" @1\nbutton "Sign up now" @2');
});

s('the element budget: the tree stops at the last ref, and a container cut short shows no computed name', () => {
  const rows = [1, 2, 3].map((i) => n('row', '', [cell(`Row ${i}`, text(`Row ${i}`)), cell(`Edit ${i}`, n('button', `Edit ${i}`))]));
  const out = render(page(n('table', '', rows)), context({ maxElements: 2 }));
  assert.is(out.truncated, true);
  assert.is(out.tree, 'table\n row\n  "Row 1"\n  button "Edit 1" @1\n row\n  "Row 2"\n  button "Edit 2" @2\n row\n  "Row 3"');
  assert.not.match(out.tree, /Edit 3/);
});

s("typed text (a textbox's content) is in neither the tree nor the text", () => {
  const field = n('textbox', 'Note', [n('generic', '', [text('TYPED-SECRET-NOTE')], { states: { editable: true } })], {
    states: { editable: true, focusable: true, hasValue: true },
  });
  const out = render(page(n('row', '', [cell('', field)])), context());
  assert.is(out.tree, 'row\n textbox "Note" [has_value] @1');
  assert.not.match(out.tree + out.text, /TYPED-SECRET-NOTE/);
});

s('secrets are redacted in text lines, names and options', () => {
  const secret = 'hunter2-typed-pw';
  const out = render(
    page(text(`you typed ${secret}`), n('button', `Send ${secret}`), select('Pick', [option(`opt ${secret}`), option('b')])),
    context({ secrets: [secret] }),
  );
  assert.not.match(out.tree + out.text + JSON.stringify(out.elements), secret);
  assert.match(out.tree, /"you typed \[redacted\]"/);
  assert.match(out.tree, /options: "opt \[redacted\]", "b"/);
});

s('siblings of one role that are only a name and a ref share a line, at any depth', () => {
  const button = (name: string) => n('button', name, [text(name)], { nameFromContents: true });
  const out = render(page(button('Back'), button('Next'), n('group', 'Pages', [button('1'), button('2'), button('3')])), context());
  assert.is(out.tree, 'button "Back" @1 "Next" @2\ngroup "Pages"\n button "1" @3 "2" @4 "3" @5');
  assert.equal(out.elements.map((e) => [e.ref, e.role, e.name]), [
    ['@1', 'button', 'Back'],
    ['@2', 'button', 'Next'],
    ['@3', 'button', '1'],
    ['@4', 'button', '2'],
    ['@5', 'button', '3'],
  ], 'elements keep one entry a node');
});

s('a run ends at another role, a state, a node with lines below it, a text line or a nameless node', () => {
  const button = (name: string, states: AxStates = {}) => n('button', name, [], { states });
  const out = render(
    page(
      button('A'),
      button('B'),
      n('link', 'L'),
      button('C'),
      button('D'),
      button('E', { pressed: true }),
      button('F'),
      button('G'),
      n('button', 'H', [n('img', 'icon')]),
      button('I'),
      button('J'),
      text('between'),
      button('K'),
      button('M'),
      button(''),
      button('N'),
    ),
    context(),
  );
  assert.is(
    out.tree,
    [
      'button "A" @1 "B" @2',
      'link "L" @3',
      'button "C" @4 "D" @5',
      'button "E" [pressed] @6',
      'button "F" @7 "G" @8',
      'button "H" @9',
      ' img "icon"',
      'button "I" @10 "J" @11',
      '"between"',
      'button "K" @12 "M" @13',
      'button @14',
      'button "N" @15',
    ].join('\n'),
  );
});

s('names with quotes, commas, refs or brackets in them stay one JSON string each', () => {
  const out = render(
    page(n('link', 'Smith, John'), n('link', 'say "hi" @9'), n('link', 'back\\slash [x]'), n('link', '"'), n('link', ', ')),
    context(),
  );
  assert.is(out.tree, String.raw`link "Smith, John" @1 "say \"hi\" @9" @2 "back\\slash [x]" @3 "\"" @4 "," @5`);
  assert.equal(parseTree(out.tree).map((node) => [node.name, node.ref]), [
    ['Smith, John', '@1'],
    ['say "hi" @9', '@2'],
    ['back\\slash [x]', '@3'],
    ['"', '@4'],
    [',', '@5'],
  ]);
});

s('at most ten nodes share a line; nodes without refs share one too (a header row)', () => {
  const out = render(page(...Array.from({ length: 12 }, (_, i) => n('link', `p${i + 1}`))), context());
  assert.is(out.tree, `link ${Array.from({ length: 10 }, (_, i) => `"p${i + 1}" @${i + 1}`).join(' ')}\nlink "p11" @11 "p12" @12`);
  const header = (name: string) => n('columnheader', name, [text(name)], { nameFromContents: true });
  const table = render(page(n('row', '', [header('Invoice'), header('Edit'), n('columnheader', ''), header('Note')])), context());
  assert.is(table.tree, 'row\n columnheader "Invoice" "Edit"\n columnheader\n columnheader "Note"', 'an empty header keeps its column');
});

s('options that are only names share a line in a select that keeps option lines', () => {
  const out = render(page(select('Plan', [option('Free'), option('Basic'), option('Pro', { disabled: true }), option('Team')])), context());
  assert.is(out.tree, 'combobox "Plan" @1\n option "Free" "Basic"\n option "Pro" [disabled]\n option "Team"');
});

interface ParsedNode {
  depth: number;
  role: string;
  name: string;
  words: string;
  ref: string | undefined;
}

/** Reads the tree back (docs/tree-format.md, "Reading a tree back"): every node of every line, text lines left out. */
function parseTree(tree: string): ParsedNode[] {
  const nodes: ParsedNode[] = [];
  for (const line of tree === '' ? [] : tree.split('\n')) {
    const depth = /^ */.exec(line)![0].length;
    let rest = line.slice(depth);
    if (rest.startsWith('"')) continue; // a text line
    const role = /^[A-Za-z][\w-]*/.exec(rest)![0];
    rest = rest.slice(role.length);
    let node: ParsedNode = { depth, role, name: '', words: '', ref: undefined };
    let named = false;
    while (rest) {
      assert.ok(rest.startsWith(' '), `a space between the parts of: ${line}`);
      rest = rest.slice(1);
      const string = /^"(?:[^"\\]|\\.)*"/.exec(rest)?.[0];
      const words = /^\[(?:[^\]"]|"(?:[^"\\]|\\.)*")*\]/.exec(rest)?.[0];
      const ref = /^@\d+/.exec(rest)?.[0];
      if (string) {
        // A second name on a line starts the next node of the run.
        if (named) {
          nodes.push(node);
          node = { depth, role, name: '', words: '', ref: undefined };
        }
        node.name = JSON.parse(string);
        named = true;
      } else if (words) node.words = words;
      else if (ref) node.ref = ref;
      else assert.unreachable(`unreadable part "${rest}" of: ${line}`);
      rest = rest.slice((string ?? words ?? ref)!.length);
    }
    nodes.push(node);
  }
  return nodes;
}

/** A page's facts about some of its elements (the rest: a plain DIV), as the snapshot gives them. */
function pageFacts() {
  const byId = new Map<number, NodeFacts>();
  const plain: NodeFacts = { clickable: false, ownPointer: false, dragAndDrop: false, nodeName: 'DIV', box: [0, 0, 10, 10] };
  return {
    /** `node` with these facts (a click listener, its own pointer cursor, drag and drop, its tag). */
    mark(node: StitchedNode, facts: Partial<NodeFacts>): StitchedNode {
      byId.set(node.backendNodeId!, { ...plain, ...facts });
      return node;
    },
    context(overrides: Partial<RenderContext> = {}): RenderContext {
      return context({ facts: (_frameId, backendNodeId) => byId.get(backendNodeId) ?? plain, ...overrides });
    },
  };
}

const listener = { clickable: true };
const pointer = { ownPointer: true };

s('a listener on an element that holds controls is delegation: no ref there, the controls keep theirs', () => {
  const facts = pageFacts();
  const button = n('button', 'New task', [text('New task')], { nameFromContents: true });
  const clickable = facts.mark(n('generic', '', [text('Import')]), pointer);
  const link = n('link', 'Reports', [text('Reports')], { nameFromContents: true });
  const root = facts.mark(
    n('generic', '', [n('heading', 'Inbox', [text('Inbox')], { nameFromContents: true, states: { level: 1 } }), button, clickable, link]),
    listener,
  );
  const out = render(page(root), facts.context());
  assert.is(out.tree, 'heading "Inbox" [level=1]\nbutton "New task" @1\ngeneric @2\n "Import"\nlink "Reports" @3');
  assert.equal(out.targets.map((t) => t.backendNodeId), [button.backendNodeId, clickable.backendNodeId, link.backendNodeId]);
  // With a field only, or a drag source only, inside: the same.
  const field = n('textbox', 'Search', [], { states: { editable: true, focusable: true } });
  const dragged = facts.mark(n('generic', '', [text('Card')]), { dragAndDrop: true });
  const withField = facts.mark(n('generic', '', [field]), listener);
  const withDrag = facts.mark(n('generic', '', [dragged]), listener);
  assert.equal(render(page(withField, withDrag), facts.context()).targets.map((t) => t.backendNodeId), [
    field.backendNodeId,
    dragged.backendNodeId,
  ]);
});

s(
  'a listener on an element with only text and images inside is a control; so is an element setting cursor:pointer, whatever it holds',
  () => {
    const facts = pageFacts();
    const card = facts.mark(
      n('generic', '', [
        n('image', 'Arc lamp'),
        n('heading', 'Arc lamp', [text('Arc lamp')], { nameFromContents: true, states: { level: 3 } }),
        text('€129'),
      ]),
      listener,
    );
    const pointerCard = facts.mark(n('generic', '', [n('button', 'Save', [text('♡')]), text('Desk lamp')]), {
      clickable: true,
      ownPointer: true,
    });
    const tile = facts.mark(n('generic', '', [text('Floor lamps')]), pointer);
    const out = render(page(card, pointerCard, tile), facts.context());
    assert.is(
      out.tree,
      'generic @1\n image "Arc lamp"\n heading "Arc lamp" [level=3]\n "€129"\ngeneric @2\n button "Save" @3\n  "♡"\n "Desk lamp"\ngeneric @4\n "Floor lamps"',
    );
  },
);

s('nested listeners: the innermost ones are the controls, whatever lies between', () => {
  const facts = pageFacts();
  const swatch = (colour: string) => facts.mark(n('generic', '', [text(colour)]), listener);
  const inner = facts.mark(n('generic', '', [swatch('Black'), swatch('Brass')]), listener);
  const outer = facts.mark(
    n('generic', '', [
      n('heading', 'Globe lamp', [text('Globe lamp')], { nameFromContents: true, states: { level: 3 } }),
      n('generic', '', [inner]),
    ]),
    listener,
  );
  const out = render(page(outer), facts.context());
  assert.is(out.tree, 'heading "Globe lamp" [level=3]\ngeneric @1\n "Black"\ngeneric @2\n "Brass"');
});

s('a list with a listener, its items styled clickable: the items carry refs, the list none', () => {
  const facts = pageFacts();
  const item = (label: string) => facts.mark(n('listitem', '', [text(label)]), pointer);
  const list = facts.mark(n('list', '', [item('Write the notes'), item('Review the flow')]), listener);
  assert.is(render(page(list), facts.context()).tree, 'list\n listitem @1\n  "Write the notes"\n listitem @2\n  "Review the flow"');
});

s(
  'rows and headers that are not focusable are judged like any element: a listener over buttons is delegation, a clickable row of text a control',
  () => {
    const facts = pageFacts();
    const delegating = facts.mark(
      n('row', '', [
        cell('Ana Lima', text('Ana Lima')),
        cell('Edit Ana', n('button', 'Edit Ana', [text('Edit Ana')], { nameFromContents: true })),
      ]),
      listener,
    );
    const clickable = facts.mark(n('row', '', [cell('Pending invite', text('Pending invite'))]), { clickable: true, ownPointer: true });
    const focusable = n('row', '', [
      cell('Ben', text('Ben')),
      cell('Edit Ben', n('button', 'Edit Ben', [text('Edit Ben')], { nameFromContents: true })),
    ], { states: { focusable: true } });
    const sortable = facts.mark(n('columnheader', 'Name', [text('Name')], { nameFromContents: true }), {
      clickable: true,
      ownPointer: true,
    });
    const plainHeader = n('columnheader', 'Stock', [text('Stock')], { nameFromContents: true });
    const out = render(page(n('table', '', [n('row', '', [sortable, plainHeader]), delegating, clickable, focusable])), facts.context());
    assert.is(
      out.tree,
      'table\n row\n  columnheader "Name" @1 "Stock"\n row\n  "Ana Lima"\n  button "Edit Ana" @2\n row @3\n  "Pending invite"\n row @4\n  "Ben"\n  button "Edit Ben" @5',
    );
  },
);

s("controls in an iframe's document do not make a container of its owner delegate (their clicks never reach it)", () => {
  const facts = pageFacts();
  const frame = n('Iframe', 'Playground', [n('button', 'Run', [text('Run')], { nameFromContents: true, frameId: 'CHILD' })], {
    childFrame: { frameId: 'CHILD', status: 'observed' },
  });
  const panel = facts.mark(n('generic', '', [text('Try it'), frame]), listener);
  assert.is(render(page(panel), facts.context()).tree, 'generic @1\n "Try it"\n iframe "Playground"\n  button "Run" @2');
});

s('labels and the document never carry a ref for their listeners; a control inside a control-by-pointer only by its role', () => {
  const facts = pageFacts();
  const label = facts.mark(n('LabelText', '', [text('Remember me')]), { clickable: true, nodeName: 'LABEL' });
  const body = facts.mark(n('generic', '', [text('Body text')]), { clickable: true, nodeName: 'BODY' });
  const icon = facts.mark(n('generic', '', [text('★')]), listener);
  const pointerCard = facts.mark(n('generic', '', [icon, text('Card')]), pointer);
  assert.is(render(page(label, body, pointerCard), facts.context()).tree, '"Remember me"\n"Body text"\ngeneric @1\n "★"\n "Card"');
});

s('the element budget does not decide a ref: a truncated render gives the first refs of a full one', () => {
  const facts = pageFacts();
  // Whether the card delegates depends on a button the budget cuts off.
  const card = facts.mark(n('generic', '', [text('Card'), n('button', 'Late', [text('Late')], { nameFromContents: true })]), listener);
  const early = n('button', 'Early', [text('Early')], { nameFromContents: true });
  const cut = render(page(early, card), facts.context({ maxElements: 1 }));
  assert.equal(cut.elements.map((e) => e.name), ['Early']);
  assert.is(cut.truncated, true);
  const all = render(page(early, card), facts.context());
  assert.equal(all.elements.map((e) => e.name), ['Early', 'Late']);
  // Any tree of listeners, pointers, buttons and text, any budget.
  type Shape = { kind: 'text' } | { kind: 'button' } | { kind: 'div'; listener: boolean; pointer: boolean; children: Shape[] };
  const { shape } = fc.letrec<{ shape: Shape }>((tie) => ({
    shape: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constant<Shape>({ kind: 'text' }),
      fc.constant<Shape>({ kind: 'button' }),
      fc.record({
        kind: fc.constant('div' as const),
        listener: fc.boolean(),
        pointer: fc.boolean(),
        children: fc.array(tie('shape'), { maxLength: 4 }),
      }),
    ),
  }));
  fc.assert(
    fc.property(fc.array(shape, { maxLength: 6 }), fc.integer({ min: 1, max: 12 }), (shapes, budget) => {
      const tree = pageFacts();
      const build = (x: Shape): StitchedNode =>
        x.kind === 'text'
          ? text('t')
          : x.kind === 'button'
          ? n('button', 'b')
          : tree.mark(n('generic', '', x.children.map(build)), { clickable: x.listener, ownPointer: x.pointer });
      const root = page(...shapes.map(build));
      const ids = (limit: number) =>
        render(root, tree.context({ maxElements: limit, refFor: (_f, id) => `@${id}` })).targets.map((t) => t.backendNodeId);
      const full = ids(500);
      assert.equal(ids(budget), full.slice(0, budget));
    }),
    { seed: 20261201, numRuns: 300 },
  );
});

s('every node, name, state and ref reads back from the tree (random siblings and groups)', () => {
  const name = fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('', 'a, b', '"', '\\"', '@1', '[x]', ' @2 "y"', 'é ✓'));
  const leaf = fc.record({ role: fc.constantFrom('button', 'link', 'checkbox'), name, checked: fc.boolean() });
  const group = fc.record({
    role: fc.constant('group'),
    name: fc.string({ minLength: 1, maxLength: 6 }).filter((s) => s.trim() !== ''),
    leaves: fc.array(leaf, { maxLength: 12 }),
  });
  fc.assert(
    fc.property(fc.array(fc.oneof(leaf, group), { maxLength: 25 }), (items) => {
      const toNode = (l: { role: string; name: string; checked: boolean }) =>
        n(l.role, l.name, [], { states: l.role === 'checkbox' ? { checked: l.checked } : {} });
      const out = render(
        page(...items.map((item) => ('leaves' in item ? n('group', item.name, item.leaves.map(toNode)) : toNode(item)))),
        context(),
      );
      const expected: ParsedNode[] = [];
      const flat = (s: string) => s.replace(/\s+/g, ' ').trim();
      const add = (l: { role: string; name: string; checked: boolean }, depth: number) =>
        expected.push({
          depth,
          role: l.role,
          name: flat(l.name),
          words: l.role === 'checkbox' && l.checked ? '[checked]' : '',
          ref: `@${expected.filter((e) => e.ref).length + 1}`,
        });
      for (const item of items) {
        if ('leaves' in item) {
          expected.push({ depth: 0, role: 'group', name: flat(item.name), words: '', ref: undefined });
          for (const l of item.leaves) add(l, 1);
        } else add(item, 0);
      }
      assert.equal(parseTree(out.tree), expected, out.tree);
      assert.equal(out.elements.map((e) => [e.ref, e.role, e.name]), expected.filter((e) => e.ref).map((e) => [e.ref, e.role, e.name]));
    }),
    { seed: 20240611, numRuns: 300 },
  );
});

const span = (...children: StitchedNode[]) => n('generic', '', children, { tag: 'SPAN' });
const div = (...children: StitchedNode[]) => n('generic', '', children, { tag: 'DIV' });
/** A token of highlighted code: Prism's <span class="token …">, ignored by Chromium (its text moves up). */
const tokens = (...values: string[]) => values.map(text);
/** <pre><code>…</code></pre> as Chromium gives it: a generic <pre> holding a `code` node. */
const pre = (...children: StitchedNode[]) => n('generic', '', [n('code', '', children)], { tag: 'PRE' });

s('inline text is one line: a bold count in a sentence, a to-do counter built from spans', () => {
  const banner = n('status', '', [text('You have '), text('3'), text(' new messages today.')]);
  const footer = n('sectionfooter', '', [
    span(n('strong', '', [text('2')]), text(' items left')),
    n('list', '', [n('listitem', '', [n('link', 'All', [text('All')], { nameFromContents: true })])]),
  ]);
  const out = render(page(banner, footer), context());
  assert.is(out.tree, 'status\n "You have 3 new messages today."\nsectionfooter\n "2 items left"\n list\n  link "All" @1');
  assert.is(out.text, 'You have 3 new messages today.\n2 items left\nAll');
});

s('a run ends at a block and at a ref: blocks keep their lines, a link splits its sentence', () => {
  const sentence = n('paragraph', '', [
    text('See '),
    n('emphasis', '', [text('Next')]),
    text(' '),
    n('link', 'steps', [text('steps')], { nameFromContents: true }),
    text(' for '),
    n('code', '', [text('init()')]),
    text('.'),
  ]);
  const cards = div(div(text('Ana Lima')), div(text('9:12')), span(text('Ben')), span(text(' Okafor')));
  const out = render(page(sentence, cards, n('paragraph', '', [text('first'), n('LineBreak', '\n'), text('second')])), context());
  assert.is(out.tree, '"See Next"\nlink "steps" @1\n"for init()."\n"Ana Lima"\n"9:12"\n"Ben Okafor"\n"first"\n"second"');
  assert.is(out.text, 'See Next\nsteps\nfor init().\nAna Lima\n9:12\nBen Okafor\nfirst\nsecond');
});

s('a highlighted code block reads as its source: a `code` line, one line a source line, indentation kept', () => {
  const code = pre(
    ...tokens('def', ' ', 'greet', '(', 'name', ')', ':', '\n\n', '    '),
    span(text('return'), text(' '), n('generic', '', tokens('f"Hello, ', '{', 'name', '}', '"'), { tag: 'SPAN' })),
    text('\n'),
  );
  const plain = n('generic', '', [text('a  b\n  c')], { tag: 'PRE' });
  const out = render(page(n('paragraph', '', [text('Call it:')]), code, plain), context());
  assert.is(out.tree, '"Call it:"\ncode\n "def greet(name):"\n "    return f\\"Hello, {name}\\""\npre\n "a  b"\n "  c"');
  assert.is(out.text, 'Call it:\ndef greet(name):\n    return f"Hello, {name}"\na  b\n  c');
});

s('a code line is clipped in the middle at 120 characters, its indentation kept; a line-number gutter is left out', () => {
  const long = `  fetch(${Array.from({ length: 30 }, (_, i) => `arg${i}`).join(', ')});`;
  const gutter = n('cell', '1 2', [n('generic', '', tokens('1', '\n', '2'), { tag: 'PRE' })], { nameFromContents: true });
  const source = n('cell', '', [pre(...tokens('x = 1', '\n', long))], { nameFromContents: true });
  const out = render(page(n('table', '', [n('row', '', [gutter, source])])), context());
  const lines = out.tree.split('\n');
  assert.equal(lines.slice(0, 4), ['table', ' row', '  code', '   "x = 1"']);
  const clipped = JSON.parse(lines[4]!.trim()) as string;
  assert.is(lines.length, 5);
  assert.ok(
    clipped.length <= 120 && clipped.startsWith('  fetch(arg0,') && clipped.endsWith('arg29);') && clipped.includes(' … '),
    clipped,
  );
  assert.is(out.text, `x = 1\n${long}`, 'text has every line whole, and no gutter');
});

s('pieces that touch in the text but stand apart on screen (flex items, a margin, a block) are a space apart; code tokens never', () => {
  const task = n('listitem', '', [placed('Write the notes', [0, 0, 120, 20]), placed('Mon', [300, 0, 30, 20])]);
  const plural = n('paragraph', '', [placed('2 item', [0, 40, 50, 20]), placed('s', [50, 40, 8, 20]), placed(' left', [58, 40, 30, 20])]);
  const stacked = n('link', 'Previous Customers', [span(placed('Previous', [0, 60, 60, 16])), placed('Customers', [0, 76, 80, 20])], {
    nameFromContents: true,
  });
  const code = pre(placed('client', [0, 100, 40, 16]), placed('.', [44, 100, 8, 16]), placed('get', [56, 100, 24, 16]));
  const out = render(page(task, plural, stacked, code), context());
  assert.is(out.tree, '"Write the notes Mon"\n"2 items left"\nlink "Previous Customers" @1\ncode\n "client.get"');
});

s('a secret split over spans is redacted in the joined line', () => {
  const out = render(
    page(n('paragraph', '', [text('Your password is hun'), n('strong', '', [text('ter2')]), text(' today')])),
    context({ secrets: ['hunter2'] }),
  );
  assert.is(out.tree, '"Your password is [redacted] today"');
  assert.not.match(out.text, /hunter2|ter2/);
});

s.run();

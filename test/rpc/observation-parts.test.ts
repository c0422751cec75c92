// An observation cut at a byte budget (src/rpc/observation-parts.ts): every part within the
// budget, and the parts read one after another give back every line and every element once.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { cursorOf, cutObservation, firstPart, parseCursor, type PartStart } from '../../src/rpc/observation-parts.ts';
import { utf8Length } from '../../src/util/utf8.ts';
import type { Observation } from '../../src/wire/index.ts';

const s = suite('observation parts');

/** An observation of `rows` rows, two refs each, with text and a diff, in a mix of scripts. */
function observationOf(rows: number, options: { text?: boolean; diff?: boolean } = {}): Observation {
  const lines: string[] = ['heading "Résumé des commandes — 注文" [level=1]'];
  const elements: Observation['elements'] = [];
  for (let i = 0; i < rows; i++) {
    const a = `@${2 * i + 1}`;
    const b = `@${2 * i + 2}`;
    // A name may hold what looks like a ref: only refs outside quotes count.
    lines.push(`  row "Commande ${i} @9999 «${'é'.repeat(i % 7)}»" ${a}`, `    link "Détails ${i} 📦" ${b}`);
    elements.push(
      { ref: a, role: 'row', name: `Commande ${i}`, frame_id: 'F', visible: true, in_viewport: i < 10 },
      { ref: b, role: 'link', name: `Détails ${i}`, frame_id: 'F', visible: true, in_viewport: i < 10 },
    );
  }
  // An element whose line was folded away goes with the one before it.
  elements.push({ ref: '@77777', role: 'option', name: 'folded', frame_id: 'F', visible: false, in_viewport: false });
  return {
    state_id: 'st_0badcafe_3',
    session_id: 'S',
    target_id: 'T',
    frame_id: 'T',
    document: { frame_id: 'T', loader_id: 'L', url: 'http://127.0.0.1/orders', ready_state: 'complete' },
    url: 'http://127.0.0.1/orders',
    title: 'Orders',
    tree: lines.join('\n'),
    elements,
    ...(options.text ? { text: Array.from({ length: rows }, (_, i) => `Ligne ${i}: ${'texte '.repeat(i % 40)}✓`).join('\n') } : {}),
    frames: [{ frame_id: 'T', url: 'http://127.0.0.1/orders', status: 'observed' }],
    truncated: false,
    blockers: [{ role: 'dialog', name: 'Cookies', dismiss_ref: '@2', covers: ['@1'] }],
    ...(options.diff ? { diff: { base: 'st_0badcafe_2', added: elements, changed: [], removed: [], text_changed: true } } : {}),
  };
}

/** Every part from the start, each checked against the budget. */
function readAll(full: Observation, maxBytes: number): Observation[] {
  const parts: Observation[] = [];
  let start: PartStart | undefined = { line: 0, offset: 0 };
  while (start) {
    const cut = cutObservation(full, start, maxBytes);
    assert.ok(cut, 'a part begins where the last one said');
    const { part, next } = cut!;
    const sent = next ? { ...part, next_cursor: cursorOf(full.state_id, next) } : part;
    assert.ok(utf8Length(JSON.stringify(sent)) <= maxBytes, `part ${parts.length} is ${utf8Length(JSON.stringify(sent))} bytes`);
    assert.is(utf8Length(JSON.stringify(sent)), new TextEncoder().encode(JSON.stringify(sent)).length);
    parts.push(part);
    if (next) assert.ok(next.line > start.line || next.offset > start.offset, 'a part moves on');
    start = next;
    assert.ok(parts.length < 10_000);
  }
  return parts;
}

s('parts within the budget give back every element once, in order, and the tree and text whole', () => {
  for (const maxBytes of [2048, 3000, 7777, 50_000]) {
    const full = observationOf(300, { text: true });
    const parts = readAll(full, maxBytes);
    assert.is(parts.length > 1, utf8Length(JSON.stringify(full)) > maxBytes, `${parts.length} parts`);
    assert.equal(parts.flatMap((p) => p.elements.map((e) => e.ref)), full.elements.map((e) => e.ref));
    const lines = parts.flatMap((p) => p.tree === '' ? [] : p.tree.split('\n'));
    const text = parts.flatMap((p) => p.text === '' || p.text === undefined ? [] : p.text.split('\n'));
    assert.is([...lines, ...text].join('\n'), `${full.tree}\n${full.text}`);
    // The opening things come once, with the first part.
    assert.equal(parts[0]!.blockers, full.blockers);
    assert.ok(parts.slice(1).every((p) => p.blockers === undefined && p.state_id === full.state_id && p.title === full.title));
  }
});

s('in markdown format the markdown is cut by its lines, each part with the elements its lines name', () => {
  const tree = observationOf(200);
  const markdown = tree.elements
    .map((e, i) => (i % 2 === 0 ? `## Commande ${i} "quoted" (${e.ref}) and text` : `See [${e.name}](${e.ref}) — « détails » 📦`))
    .join('\n\n');
  const full: Observation = { ...tree, tree: '', markdown };
  const parts = readAll(full, 3000);
  assert.ok(parts.length > 1);
  assert.equal(parts.flatMap((p) => p.elements.map((e) => e.ref)), full.elements.map((e) => e.ref));
  assert.is(parts.map((p) => p.markdown).join('\n'), markdown);
  assert.ok(parts.every((p) => p.tree === ''));
  for (const part of parts) {
    const named = new Set([...part.markdown!.matchAll(/\((@\d+)\)/g)].map((m) => m[1]));
    assert.ok(part.elements.every((e) => named.has(e.ref) || e.ref === '@77777'), 'a part carries the elements its lines name');
  }
});

s('an element goes with the line that names its ref, not a ref written inside a name', () => {
  const full = observationOf(40);
  const parts = readAll(full, 2048);
  for (const part of parts) {
    const named = new Set(part.tree.match(/ @\d+$/gm)?.map((r) => r.trim()));
    for (const element of part.elements) {
      assert.ok(named.has(element.ref) || element.ref === '@77777', `${element.ref} not on its part's lines`);
    }
  }
  assert.ok(parts.some((p) => p.elements.some((e) => e.ref === '@77777')));
});

s('a line longer than a part is split at a character, never inside a pair, and joined back', () => {
  const full = { ...observationOf(2), text: `${'日本語のテキスト📦'.repeat(900)}\nend` };
  const parts = readAll(full, 2048);
  assert.ok(parts.length > 5, `${parts.length} parts`);
  const text = parts.map((p) => p.text ?? '').join('');
  for (const part of parts) assert.not.ok(/[\ud800-\udbff]$/.test(part.text ?? ''), 'no part ends inside a pair');
  assert.ok(text.includes(full.text.split('\n')[0]!));
});

s('a diff that leaves no room for a line is left out of the first part; a fitting one stays', () => {
  const big = observationOf(60, { diff: true });
  const [first] = readAll(big, 4096);
  assert.is(first!.diff, undefined);
  assert.equal(first!.blockers, big.blockers);
  const small = { ...observationOf(3), diff: { base: 'st_0badcafe_2', added: [], changed: [], removed: ['@5'], text_changed: false } };
  assert.equal(readAll(small, 4096)[0]!.diff, small.diff);
});

s('an observation that fits is one part with no cursor', () => {
  const full = observationOf(3, { text: true });
  const { part, next } = firstPart(full, 1_000_000);
  assert.is(next, undefined);
  assert.equal(part, full);
});

s('cursors name a state and a start; anything else is not a cursor', () => {
  const start = { line: 12, offset: 340 };
  assert.equal(parseCursor(cursorOf('st_0badcafe_3', start)), { stateId: 'st_0badcafe_3', start });
  for (const bad of ['', 'st_1', 'st_1~x.1', 'st_1~1', '~1.2']) assert.is(parseCursor(bad), undefined, bad);
  const full = observationOf(3);
  assert.is(cutObservation(full, { line: 400, offset: 0 }, 1_000), undefined);
  assert.is(cutObservation(full, { line: 0, offset: 100_000 }, 1_000), undefined);
});

s.run();

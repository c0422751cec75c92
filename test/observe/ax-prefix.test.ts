// The prefix read (ax-prefix.ts) over a scripted document: what it asks for, in which order, and
// that the tree built from what it read renders as the whole document's does, cut short.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { readPrefix } from '../../src/observe/ax-prefix.ts';
import { buildAxTree, buildAxTreeFrom } from '../../src/observe/ax-tree.ts';
import { render, type StitchedNode } from '../../src/observe/render.ts';
import type { AxViewNode } from '../../src/observe/ax-tree.ts';

type AXNode = Cdp.Accessibility.AXNode;

const s = suite('prefix read');

/**
 * A documentation index: a search field, then 10 sections, each a heading and a list of 10
 * entries (a link with text, then text). Ids are backendNodeIds too; every node has an element.
 */
function documentIndex(): Map<string, AXNode> {
  const nodes = new Map<string, AXNode>();
  let next = 1;
  const add = (role: string, name: string, parentId: string | undefined): AXNode => {
    const node: AXNode = {
      nodeId: String(next),
      ignored: false,
      role: { type: 'role', value: role },
      name: { type: 'computedString', value: name },
      childIds: [],
      backendDOMNodeId: next,
      ...(parentId ? { parentId } : {}),
    };
    next++;
    nodes.set(node.nodeId, node);
    if (parentId) nodes.get(parentId)!.childIds!.push(node.nodeId);
    return node;
  };
  const root = add('RootWebArea', 'Index', undefined);
  add('searchbox', 'Search', root.nodeId);
  for (let section = 0; section < 10; section++) {
    const region = add('region', `Section ${section}`, root.nodeId);
    add('heading', `S${section}`, region.nodeId);
    const list = add('list', '', region.nodeId);
    for (let entry = 0; entry < 10; entry++) {
      const item = add('listitem', '', list.nodeId);
      const link = add('link', `entry_${section}_${entry}()`, item.nodeId);
      add('StaticText', `entry_${section}_${entry}()`, link.nodeId);
      add('StaticText', ' (function)', item.nodeId);
    }
  }
  return nodes;
}

/** getPartialAXTree {fetchRelatives: true} as Chromium answers it: the node, its children, its ancestors. */
function partial(nodes: Map<string, AXNode>, asked: number[]) {
  return async (backendNodeId: number): Promise<AXNode[]> => {
    asked.push(backendNodeId);
    const own = nodes.get(String(backendNodeId))!;
    const out = [own, ...(own.childIds ?? []).map((id) => nodes.get(id)!)];
    for (let up = own.parentId; up !== undefined; up = nodes.get(up)!.parentId) out.push(nodes.get(up)!);
    return out;
  };
}

function stitched(node: AxViewNode): StitchedNode {
  return {
    ...node,
    frameId: 'F',
    children: node.children.map((child) => (child.unread ? { unread: true, frameId: 'F' } : stitched(child))),
  };
}

function rendered(tree: AxViewNode, maxElements: number) {
  return render(stitched(tree), {
    maxElements,
    secrets: [],
    facts: () => undefined,
    textBox: () => undefined,
    inViewport: () => false,
    refFor: (_frameId, backendNodeId) => `@${backendNodeId}`,
  });
}

s('reads from the top as far as the wanted ref, then further from where it stopped', async () => {
  const nodes = documentIndex();
  const whole = buildAxTree([...nodes.values()])!;
  const asked: number[] = [];
  const cost = { calls: 0, nodes: 0 };
  const first = await readPrefix({ read: partial(nodes, asked), documentBackendNodeId: 1, wanted: 6, cost });
  assert.ok(first?.partial, 'the first look is a part of the document');
  // The root, the first section's list, its first items and their links; of the sections after it
  // (which may hold refs just as well), only the first few, and only their top level.
  const sectionOf = (id: number) => Math.floor((id - 3) / 42);
  const isSection = (id: number) => nodes.get('1')!.childIds!.includes(String(id));
  assert.ok(asked.every((id) => id === 1 || sectionOf(id) === 0 || isSection(id)), `asked for ${asked.join(' ')}`);
  assert.ok(asked.filter(isSection).length <= 3, `asked for ${asked.join(' ')}`);
  assert.ok(first!.nodes.size < nodes.size / 4, `${first!.nodes.size} of ${nodes.size} nodes`);
  assert.is(cost.calls, asked.length);

  // The first 5 refs (and the 6th, which says it is cut short) render as in the whole document.
  const tree = buildAxTreeFrom(first!.nodes, first!.nodes.get(first!.rootId)!, undefined, true)!;
  assert.equal(rendered(tree, 5), rendered(whole, 5));
  // More refs than were read: rendering says the read must go further, and where.
  assert.equal(rendered(tree, 40), { needs: { frameId: 'F' } });

  asked.length = 0;
  const more = await readPrefix({ read: partial(nodes, asked), documentBackendNodeId: 1, wanted: 41, document: first!, cost });
  assert.not.ok(asked.includes(1), 'what was read is not read again');
  const further = buildAxTreeFrom(more!.nodes, more!.nodes.get(more!.rootId)!, undefined, true)!;
  assert.equal(rendered(further, 40), rendered(whole, 40));

  const all = await readPrefix({ read: partial(nodes, []), documentBackendNodeId: 1, wanted: Infinity, document: more!, cost });
  assert.is(all!.partial, undefined, 'the whole document read is no longer partial');
  assert.is(all!.nodes.size, nodes.size);
});

s('probes (the ends of paths, asked about first) read the same with fewer calls, whatever they are', async () => {
  const nodes = documentIndex();
  const whole = buildAxTree([...nodes.values()])!;
  const levels: number[] = [];
  const cost = { calls: 0, nodes: 0 };
  const byLevel = await readPrefix({ read: partial(nodes, levels), documentBackendNodeId: 1, wanted: 31, cost });
  // The ends of the first sections' paths: each link (its text) and each item (its own text).
  const ends = [...nodes.values()].filter((node) => node.role?.value === 'link' || node.role?.value === 'listitem');
  const probes = ends.slice(0, 60).map((node) => node.backendDOMNodeId!);
  const asked: number[] = [];
  const probed = await readPrefix({ read: partial(nodes, asked), documentBackendNodeId: 1, wanted: 31, probes, cost });
  const tree = (read: typeof probed) => buildAxTreeFrom(read!.nodes, read!.nodes.get(read!.rootId)!, undefined, true)!;
  assert.equal(rendered(tree(probed), 30), rendered(whole, 30));
  assert.equal(rendered(tree(probed), 30), rendered(tree(byLevel), 30));
  assert.ok(asked.length < levels.length, `${asked.length} calls with probes, ${levels.length} level by level`);

  // A probe far past the wanted ref (the last entry's link): the nodes on its path are read with
  // all their children, as level by level, so that no node is kept with only some of them.
  const far = await readPrefix({
    read: partial(nodes, []),
    documentBackendNodeId: 1,
    wanted: 31,
    probes: [...probes, ends.at(-1)!.backendDOMNodeId!],
    cost,
  });
  for (const node of far!.nodes.values()) {
    const read = (node.childIds ?? []).filter((id) => far!.nodes.has(id)).length;
    assert.ok(
      read === 0 || read === node.childIds!.length,
      `${node.role?.value} ${node.nodeId}: ${read} of ${node.childIds!.length} children`,
    );
  }

  // Probes that fail, or name an ignored element (Chromium lists it without children, and once
  // more first among its parent's), leave the read as it was.
  const heading = [...nodes.values()].find((node) => node.role?.value === 'heading')!;
  heading.ignored = true;
  const quirky = async (backendNodeId: number): Promise<AXNode[]> => {
    if (backendNodeId === 9_999) throw new Error('No node with given id found');
    const answer = await partial(nodes, [])(backendNodeId);
    if (backendNodeId !== heading.backendDOMNodeId) return answer;
    const [own, ...ancestors] = answer.filter((node) => node === answer[0] || node.nodeId !== heading.nodeId);
    const { childIds: _, ...listed } = own!;
    return [
      listed,
      ...ancestors.map((node) => node.nodeId === heading.parentId ? { ...node, childIds: [heading.nodeId, ...node.childIds!] } : node),
    ];
  };
  const odd = await readPrefix({
    read: quirky,
    documentBackendNodeId: 1,
    wanted: 31,
    probes: [heading.backendDOMNodeId!, 9_999, ...probes],
    cost,
  });
  assert.equal(rendered(tree(odd), 30), rendered(buildAxTree([...nodes.values()])!, 30));
  assert.equal(odd!.nodes.get(heading.parentId!)!.childIds, nodes.get(heading.parentId!)!.childIds);
});

s.run();

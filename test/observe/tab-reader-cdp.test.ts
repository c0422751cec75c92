// TabReader.observe over a scripted CDP peer: the exact commands a first read, a reused read and a
// patched read send. What the monitor answers is scripted; the rest is the real reader, planner
// and reads, so a plan that reads more (or less) than it should shows here as a different list.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { IsolatedWorlds } from '../../src/browser/isolated-worlds.ts';
import { Tab } from '../../src/browser/tab.ts';
import { Connection } from '../../src/cdp/connection.ts';
import { RefRegistry } from '../../src/observe/refs.ts';
import { TabReader } from '../../src/observe/tab-reader.ts';
import { attachEvent, FakeCdpPeer, until } from '../helpers/fake-cdp.ts';
import { TAB_STARTUP_COMMANDS } from '../helpers/fake-tab.ts';

type AXNode = Cdp.Accessibility.AXNode;

const s = suite('TabReader over a scripted CDP peer');

function axNode(nodeId: string, role: string, name: string, parentId: string | undefined, childIds: string[], value?: string): AXNode {
  // A field is named by its label; anything else here by its contents.
  const source = value === undefined ? 'contents' : 'relatedElement';
  return {
    nodeId,
    ignored: false,
    role: { type: 'role', value: role },
    name: { type: 'computedString', value: name, sources: [{ type: source, value: { type: 'computedString', value: name } }] },
    ...(value !== undefined ? { value: { type: 'string', value } } : {}),
    ...(parentId === undefined ? {} : { parentId }),
    childIds,
    backendDOMNodeId: Number(nodeId),
  };
}

/** A document with a button (backendNodeId 2) and a text field (3), as Chromium would give it. */
const page = {
  root: axNode('1', 'RootWebArea', 'Sign in', undefined, ['2', '3']),
  button: axNode('2', 'button', 'Go', '1', []),
  field: (value: string) => axNode('3', 'textbox', 'Name', '1', [], value),
};

const snapshot: Cdp.DOMSnapshot.CaptureSnapshotResult = {
  strings: ['MAIN', '#document', 'BUTTON', 'INPUT'],
  documents: [{
    documentURL: 0,
    title: 0,
    baseURL: 0,
    contentLanguage: 0,
    encodingName: 0,
    publicId: 0,
    systemId: 0,
    frameId: 0,
    nodes: { backendNodeId: [1, 2, 3], parentIndex: [-1, 0, 0], nodeName: [1, 2, 3], nodeType: [9, 1, 1], isClickable: { index: [1] } },
    layout: {
      nodeIndex: [1, 2],
      styles: [[], []],
      bounds: [[0, 0, 80, 30], [0, 40, 200, 30]],
      text: [-1, -1],
      stackingContexts: { index: [] },
    },
    textBoxes: { layoutIndex: [], bounds: [], start: [], length: [] },
    scrollOffsetX: 0,
    scrollOffsetY: 0,
  }],
};

/** What the frame's monitor says, as takeChanges' deep-serialized answer (change-monitor.ts). */
function monitorAnswer(summary: Record<string, unknown>, changed: number[] = []) {
  const remoteObject = {
    type: 'object',
    deepSerializedValue: {
      type: 'array',
      value: [
        { type: 'string', value: JSON.stringify({ monitor: 'm1', roots: changed.length, ...summary }) },
        ...changed.map((backendNodeId) => ({ type: 'node', value: { backendNodeId } })),
      ],
    },
  };
  return { result: { result: remoteObject } };
}

/**
 * Answers our world's calls: axProbes (the document, then the elements a prefix read asks about
 * first) with `probes`, every other call (the monitor's) with `monitor`.
 */
function pageCalls(monitor: () => ReturnType<typeof monitorAnswer>, probes: number[] = []) {
  return (message: { params: Record<string, unknown> }) => {
    if (!String(message.params.functionDeclaration).includes('.axProbes.apply(')) return monitor();
    const value = [1, ...probes].map((backendNodeId) => ({ type: 'node', value: { backendNodeId } }));
    return { result: { result: { type: 'object', deepSerializedValue: { type: 'array', value } } } };
  };
}

async function scriptedTab() {
  const peer = new FakeCdpPeer();
  for (const method of TAB_STARTUP_COMMANDS) peer.answer(method, () => ({ result: {} }));
  peer.answer('Page.getFrameTree', () => ({
    result: {
      frameTree: {
        frame: {
          id: 'MAIN',
          loaderId: 'L1',
          url: 'http://127.0.0.1/login',
          domainAndRegistry: '',
          securityOrigin: 'http://127.0.0.1',
          mimeType: 'text/html',
          secureContextType: 'Secure',
          crossOriginIsolatedContextType: 'NotIsolated',
          gatedAPIFeatures: [],
        },
      },
    },
  }));
  peer.answer('Page.createIsolatedWorld', () => ({ result: { executionContextId: 7 } }));
  peer.answer('Page.getLayoutMetrics', () => ({
    result: { cssLayoutViewport: { pageX: 0, pageY: 0, clientWidth: 800, clientHeight: 600 } },
  }));
  peer.answer('DOMSnapshot.captureSnapshot', () => ({ result: snapshot }));
  const connection = new Connection(peer);
  const attached = new Promise<Parameters<Parameters<Connection['onAttached']>[0]>[0]>((resolve) => connection.onAttached(resolve));
  peer.emit('Target.attachedToTarget', attachEvent('P', 'MAIN'));
  await until(() => connection.session('P') !== undefined);
  const tab = new Tab(await attached);
  await tab.ready;
  return { peer, tab };
}

s('a first read, a reused read and a patched read send exactly what they need', async () => {
  const { peer, tab } = await scriptedTab();
  const reader = new TabReader();
  const worlds = new IsolatedWorlds();
  const refs = new RefRegistry();
  const observe = () => reader.observe({ tab, root: tab.frames.get('MAIN')!, refs, maxElements: 100, secrets: [], worlds });
  const sentDuring = async (work: () => Promise<unknown>) => {
    const from = peer.sent.length;
    await work();
    return peer.sent.slice(from).map((message) => message.method);
  };

  // First: a new monitor can place nothing; the tree is read from the top (the document node and
  // the elements to ask about first, asked in our world, then the document and those elements at
  // once: here that is all of it), then the snapshot in full: the page's facts need a node read
  // with its children to walk to, and here only the document has any (prefix-facts.ts).
  peer.answer(
    'Runtime.callFunctionOn',
    pageCalls(() => monitorAnswer({ generation: 1, full: true, geometry: true, layout: true, elements: 5_000 }), [2, 3]),
  );
  peer.answer('Accessibility.getPartialAXTree', (message) => {
    const asked = message.params.backendNodeId;
    return {
      result: {
        nodes: asked === 1
          ? [page.root, page.button, page.field('')]
          : asked === 2
          ? [page.button, page.root]
          : [page.field(''), page.root],
      },
    };
  });
  let first: Awaited<ReturnType<typeof observe>> | undefined;
  const firstSent = peer.sent.length;
  // The probes are asked before the read (a document whose probes would be many calls is read
  // whole instead), so the read's calls go out before the layout metrics the facts take alongside.
  assert.equal(await sentDuring(async () => (first = await observe())), [
    'Page.createIsolatedWorld',
    'Runtime.callFunctionOn',
    'Runtime.callFunctionOn',
    'Accessibility.getPartialAXTree',
    'Accessibility.getPartialAXTree',
    'Accessibility.getPartialAXTree',
    'Page.getLayoutMetrics',
    'DOMSnapshot.captureSnapshot',
  ]);
  assert.equal(
    peer.sent.slice(firstSent).filter((message) => message.method === 'Accessibility.getPartialAXTree').map((message) => message.params),
    [2, 3, 1].map((backendNodeId) => ({ backendNodeId, fetchRelatives: true })),
    'the probes, sent first, then the document',
  );
  assert.match(first!.tree, /textbox "Name" @2/);

  // Nothing changed since: one question to the monitor, and the last read as it was.
  peer.answer('Runtime.callFunctionOn', () => monitorAnswer({ generation: 1, full: false, geometry: false, layout: false }));
  let second: Awaited<ReturnType<typeof observe>> | undefined;
  assert.equal(await sentDuring(async () => (second = await observe())), ['Runtime.callFunctionOn']);
  assert.is(second, first, 'the same read renders the same');

  // A value typed into the field: that element is read again, the snapshot kept.
  peer.answer('Runtime.callFunctionOn', () => monitorAnswer({ generation: 2, full: false, geometry: false, layout: false }, [3]));
  peer.answer('Accessibility.getPartialAXTree', () => ({ result: { nodes: [page.field('Ada'), page.root] } }));
  let third: Awaited<ReturnType<typeof observe>> | undefined;
  assert.equal(await sentDuring(async () => (third = await observe())), ['Runtime.callFunctionOn', 'Accessibility.getPartialAXTree']);
  assert.match(third!.tree, /textbox "Name" \[has_value\]/, 'the patched tree has the typed value');
  assert.equal(peer.lastSent('Accessibility.getPartialAXTree')?.params, { backendNodeId: 3, fetchRelatives: true });

  assert.equal(reader.counts.snapshot(), {
    frameReadsFull: 1,
    frameReadsPatched: 1,
    frameReadsReused: 1,
    snapshotsFull: 1,
    snapshotsLight: 0,
    snapshotsKept: 1,
    changesReadAhead: 0,
    axPartsReadAhead: 0,
    axNodesRead: 3 + 2 + 2,
    axReadCalls: 3,
    factsFromPage: 0,
  });
});

s('a first look that meets a part it cannot read from the top reads the document whole', async () => {
  const { peer, tab } = await scriptedTab();
  const reader = new TabReader();
  const refs = new RefRegistry();
  peer.answer(
    'Runtime.callFunctionOn',
    pageCalls(() => monitorAnswer({ generation: 1, full: true, geometry: true, layout: true, elements: 5_000 })),
  );
  // The root lists a child without an element of its own, and without its children: getPartialAXTree
  // cannot be asked for them.
  const orphan: AXNode = { nodeId: 'x1', ignored: false, role: { type: 'role', value: 'generic' }, parentId: '1', childIds: ['x2'] };
  peer.answer('Accessibility.getPartialAXTree', () => ({ result: { nodes: [{ ...page.root, childIds: ['x1'] }, orphan] } }));
  peer.answer('Accessibility.getFullAXTree', () => ({ result: { nodes: [page.root, page.button, page.field('')] } }));
  const observation = await reader.observe({
    tab,
    root: tab.frames.get('MAIN')!,
    refs,
    maxElements: 100,
    secrets: [],
    worlds: new IsolatedWorlds(),
  });
  assert.match(observation.tree, /button "Go" @1/);
  assert.ok(peer.lastSent('Accessibility.getFullAXTree'), 'read whole');
  assert.is(reader.counts.snapshot().axNodesRead, 3 + 2);
});

s('a frame Chromium does not have (a stale record) leaves the tab and the observation', async () => {
  const { peer, tab } = await scriptedTab();
  // An old document's iframe that attached after its parent had navigated away.
  peer.emit('Page.frameAttached', { frameId: 'GHOST', parentFrameId: 'MAIN' }, 'P');
  await until(() => tab.frames.get('GHOST') !== undefined);
  peer.answer('Runtime.callFunctionOn', () => monitorAnswer({ generation: 1, full: true, geometry: true, layout: true }));
  peer.answer(
    'Accessibility.getFullAXTree',
    (message) =>
      message.params['frameId'] === 'GHOST' ? { error: { code: -32000, message: 'Frame with the given frameId is not found.' } } : {
        result: {
          nodes: [{
            nodeId: '1',
            ignored: false,
            role: { type: 'role', value: 'RootWebArea' },
            name: { type: 'computedString', value: 'Sign in' },
            backendDOMNodeId: 1,
          }],
        },
      },
  );
  const reader = new TabReader();
  const observed = await reader.observe({
    tab,
    root: tab.frames.get('MAIN')!,
    refs: new RefRegistry(),
    maxElements: 100,
    secrets: [],
    worlds: new IsolatedWorlds(),
  });
  assert.equal(observed.frames.map((frame) => frame.frameId), ['MAIN']);
  assert.is(tab.frames.get('GHOST'), undefined);
});

s.run();

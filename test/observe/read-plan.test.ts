// read-plan.ts: what an observation reads again, decided from plain data (no CDP, no tab). Each case
// is the last read, the frames now and their monitors' answers, and the plan expected of them.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { FrameRecord } from '../../src/browser/frame-tree.ts';
import type { CdpSession } from '../../src/cdp/session.ts';
import type { AxDocument } from '../../src/observe/ax-document.ts';
import type { AxViewNode } from '../../src/observe/ax-tree.ts';
import type { FrameChanges } from '../../src/observe/change-monitor.ts';
import type { FrameRead, PageRead, SessionRead } from '../../src/observe/frame-reads.ts';
import type { DocumentFacts } from '../../src/observe/page-facts.ts';
import { type CachedRead, MAX_READ_AHEAD, type PagePlan, type PlannedFrame, planReads, readToKeep } from '../../src/observe/read-plan.ts';

const s = suite('read-plan');

// Renderers are told apart by identity only: any two distinct objects will do.
const rendererA = { name: 'renderer A' } as unknown as CdpSession;
const rendererB = { name: 'renderer B' } as unknown as CdpSession;

function frame(id: string, loaderId: string, session = rendererA): PlannedFrame {
  return { id, loaderId, session };
}

function frameRead(planned: PlannedFrame, options: { ax?: boolean } = {}): FrameRead {
  const tree: AxViewNode = { role: 'RootWebArea', name: planned.id, backendNodeId: 1, states: {}, children: [] } as unknown as AxViewNode;
  const ax = { rootId: '1', nodes: new Map() } as unknown as AxDocument;
  return {
    frame: planned as FrameRecord,
    loaderId: planned.loaderId,
    tree,
    ...(options.ax === false ? {} : { ax }),
  };
}

function facts(frameId: string, scroll: [number, number] = [0, 0]): DocumentFacts {
  return {
    frameId,
    documentBackendNodeId: 1,
    scrollX: scroll[0],
    scrollY: scroll[1],
    nodes: new Map(),
    textBoxes: new Map(),
    childFrames: new Map(),
    closedShadowRoots: [],
  };
}

/** The last read of `frames`, each at generation 1 of monitor `m-<frame id>`, one snapshot per renderer. */
function lastRead(frames: PlannedFrame[], options: { ax?: boolean } = {}): CachedRead {
  const frameReads = frames.map((f) => frameRead(f, options));
  const sessions = [...new Set(frames.map((f) => f.session))];
  const sessionSnapshots: SessionRead[] = sessions.map((session) => ({
    session,
    documents: frames.filter((f) => f.session === session).map((f) => facts(f.id)),
    metrics: undefined,
  }));
  const read: PageRead = { frameReads, sessionSnapshots, ownerPairs: [] };
  return {
    read,
    frames: new Map(
      frameReads.map((
        r,
      ) => [r.frame.id, { loaderId: r.loaderId, mark: { monitor: `m-${r.frame.id}`, generation: 1 }, read: r, readAheadIds: [] }]),
    ),
  };
}

function changes(frameId: string, extra: Partial<FrameChanges> = {}): FrameChanges {
  return {
    monitor: `m-${frameId}`,
    generation: 1,
    full: false,
    geometry: false,
    layout: false,
    roots: [],
    pointers: [],
    quiet: false,
    ...extra,
  };
}

/** What a monitor new to the document answers (change-monitor.ts): nothing can be placed yet. */
function fresh(frameId: string): FrameChanges {
  return changes(frameId, { monitor: `m-new-${frameId}`, generation: 0, full: true, geometry: true, layout: true });
}

/** The plan in words: each frame's kind, then each renderer's snapshot (kept, light or full). */
function describe(plan: PagePlan, frames: PlannedFrame[]): string[] {
  if (plan.kind === 'cached') return ['cached'];
  const sessions = [...new Set(frames.map((f) => f.session))];
  return [
    ...frames.map((f) => {
      const framePlan = plan.plan.frames.get(f.id);
      return `${f.id}: ${framePlan?.kind}${framePlan?.kind === 'patch' ? ` ${framePlan.roots.join(',')}` : ''}`;
    }),
    ...sessions.map((session) => {
      const name = (session as unknown as { name: string }).name;
      return `${name}: ${plan.plan.snapshots.has(session) ? 'kept' : plan.plan.light.has(session) ? 'light' : 'full'}`;
    }),
  ];
}

const main = frame('MAIN', 'L1');
const child = frame('CHILD', 'L2');
const remote = frame('REMOTE', 'L3', rendererB);

interface Case {
  name: string;
  cached: CachedRead | undefined;
  frames: PlannedFrame[];
  changes: Array<FrameChanges | undefined>;
  expected: string[];
}

const cases: Case[] = [
  {
    name: 'no last read: every frame and renderer in full',
    cached: undefined,
    frames: [main, child],
    changes: [fresh('MAIN'), fresh('CHILD')],
    expected: ['MAIN: full', 'CHILD: full', 'renderer A: full'],
  },
  {
    name: 'nothing changed: the last read as it is',
    cached: lastRead([main, child]),
    frames: [main, child],
    changes: [changes('MAIN'), changes('CHILD')],
    expected: ['cached'],
  },
  {
    name: 'values only (a field typed into): the field re-read, the snapshot kept',
    cached: lastRead([main]),
    frames: [main],
    changes: [changes('MAIN', { generation: 2, roots: [7] })],
    expected: ['MAIN: patch 7', 'renderer A: kept'],
  },
  {
    name: 'a mutation that can move boxes: patched, snapshot without styles',
    cached: lastRead([main]),
    frames: [main],
    changes: [changes('MAIN', { generation: 2, layout: true, roots: [7, 9] })],
    expected: ['MAIN: patch 7,9', 'renderer A: light'],
  },
  {
    name: 'geometry only (a resize): the tree reused, the snapshot light',
    cached: lastRead([main]),
    frames: [main],
    changes: [changes('MAIN', { generation: 2, geometry: true })],
    expected: ['MAIN: reuse', 'renderer A: light'],
  },
  {
    name: 'a new document in the frame: full',
    cached: lastRead([main]),
    frames: [frame('MAIN', 'L9')],
    changes: [fresh('MAIN')],
    expected: ['MAIN: full', 'renderer A: full'],
  },
  {
    name: 'the monitor says only a full read is safe',
    cached: lastRead([main]),
    frames: [main],
    changes: [changes('MAIN', { generation: 2, full: true })],
    expected: ['MAIN: full', 'renderer A: full'],
  },
  {
    name: 'a frame added: the old one reused, the new one and the snapshot in full',
    cached: lastRead([main]),
    frames: [main, child],
    changes: [changes('MAIN'), fresh('CHILD')],
    expected: ['MAIN: reuse', 'CHILD: full', 'renderer A: full'],
  },
  {
    name: 'a frame whose monitor could not be asked: that frame in full',
    cached: lastRead([main, child]),
    frames: [main, child],
    changes: [changes('MAIN'), undefined],
    expected: ['MAIN: reuse', 'CHILD: full', 'renderer A: full'],
  },
  {
    name: 'a patch without kept nodes to patch: full',
    cached: lastRead([main], { ax: false }),
    frames: [main],
    changes: [changes('MAIN', { generation: 2, roots: [7] })],
    expected: ['MAIN: full', 'renderer A: kept'],
  },
  {
    name: 'two renderers: the unchanged one keeps its snapshot, the changed one is taken light',
    cached: lastRead([main, remote]),
    frames: [main, remote],
    changes: [changes('MAIN'), changes('REMOTE', { generation: 3, layout: true, roots: [4] })],
    expected: ['MAIN: reuse', 'REMOTE: patch 4', 'renderer A: kept', 'renderer B: light'],
  },
];

for (const c of cases) {
  s(c.name, () => {
    assert.equal(describe(planReads({ cached: c.cached, frames: c.frames, changes: c.changes }), c.frames), c.expected);
  });
}

s('a kept snapshot carries the scroll offset the monitor last saw', () => {
  const plan = planReads({ cached: lastRead([main]), frames: [main], changes: [changes('MAIN', { generation: 2, scroll: [0, 640] })] });
  assert.is(plan.kind, 'read');
  const kept = plan.kind === 'read' ? plan.plan.snapshots.get(rendererA) : undefined;
  assert.equal(kept?.documents.map((d) => [d.scrollX, d.scrollY]), [[0, 640]]);
});

s('a patch carries the accessibility reads already under way', () => {
  const early = new Map([[7, Promise.resolve(undefined)]]);
  const plan = planReads({
    cached: lastRead([main]),
    frames: [main],
    changes: [changes('MAIN', { generation: 2, roots: [7] })],
    axReadsAhead: [early],
  });
  const framePlan = plan.kind === 'read' ? plan.plan.frames.get('MAIN') : undefined;
  assert.is(framePlan?.kind === 'patch' ? framePlan.axReadsAhead : undefined, early);
});

s('readToKeep: the marks come from the changes; a frame not asked keeps nothing', () => {
  const read = lastRead([main, child]).read;
  const manyRoots = Array.from({ length: MAX_READ_AHEAD + 1 }, (_, i) => i + 10);
  const kept = readToKeep(read, [changes('MAIN', { generation: 5, roots: [3] }), changes('CHILD', { generation: 2, roots: manyRoots })]);
  assert.equal(kept?.frames.get('MAIN')?.mark, { monitor: 'm-MAIN', generation: 5 });
  assert.equal(kept?.frames.get('MAIN')?.readAheadIds, [3]);
  assert.equal(kept?.frames.get('CHILD')?.readAheadIds, [], 'too many to read early');
  assert.is(readToKeep(read, [changes('MAIN'), undefined]), undefined);
  const layoutUnread = { ...read, sessionSnapshots: read.sessionSnapshots.map((snapshot) => ({ ...snapshot, documents: [] })) };
  assert.is(readToKeep(layoutUnread, [changes('MAIN'), changes('CHILD')]), undefined, 'a renderer whose snapshot failed: read again');
});

s.run();

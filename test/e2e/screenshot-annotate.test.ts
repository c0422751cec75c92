// screenshot {annotate} against a real page (PROTOCOL.md §10): the refs of an observation drawn
// onto the image, read back from the decoded pixels: each label sits at its element's top-left
// corner and its outline along the element's edges, where the page is now; masking still
// applies; the page's DOM is never touched.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { markColour } from '../../src/capture/annotate.ts';
import type { TestClient } from '../helpers/client.ts';
import { documentLoaded, evaluate, tabOf } from '../helpers/page.ts';
import type { TestServer } from '../helpers/pagewire.ts';
import { openTab, withSession } from '../helpers/session-suite.ts';
import { waitUntil } from '../helpers/wait.ts';
import { coloursIn, decodeBase64, type DecodedImage, decodePng } from '../helpers/png.ts';
import type { Observation, ScreenshotResult as Shot } from '../helpers/wire.ts';

interface Rect {
  x: number;
  y: number;
  width: number;
  height: number;
}

const BLACK = '0,0,0,255';

const s = suite('screenshot-annotate');
let server: TestServer;
let client: TestClient;
let sessionId: string;

const ctx = withSession(s, 'screenshot-annotate', (context) => ({ server, client, sessionId } = context));

function shoot(params: Record<string, unknown>): Promise<Shot> {
  return client.call('screenshot', { session_id: sessionId, ...params });
}

function observe(targetId: string): Promise<Observation> {
  return client.call('observe', { session_id: sessionId, target_id: targetId });
}

function decode(shot: Shot): DecodedImage {
  return decodePng(decodeBase64(shot.data));
}

function refOf(o: Observation, role: string, name: string): string {
  const element = o.elements.find((e) => e.role === role && e.name === name);
  if (!element) throw new Error(`no ${role} "${name}" in ${JSON.stringify(o.elements.map((e) => [e.role, e.name]))}`);
  return element.ref;
}

/** An element's border box in viewport CSS px, by selector. */
function boxOf(targetId: string, selector: string): Promise<Rect> {
  return evaluate<Rect>(
    server,
    targetId,
    `(() => { const r = document.querySelector(${
      JSON.stringify(selector)
    }).getBoundingClientRect(); return { x: r.x, y: r.y, width: r.width, height: r.height }; })()`,
  );
}

function pixel(image: DecodedImage, x: number, y: number): string {
  const i = (Math.floor(y) * image.width + Math.floor(x)) * 4;
  return `${image.pixels[i]},${image.pixels[i + 1]},${image.pixels[i + 2]},${image.pixels[i + 3]}`;
}

function rgba(colour: string): string {
  return `${parseInt(colour.slice(1, 3), 16)},${parseInt(colour.slice(3, 5), 16)},${parseInt(colour.slice(5, 7), 16)},255`;
}

/**
 * The points that say a ref is drawn on `box` (image px): its label's background at the box's
 * top-left corner, and its outline at the middle of its bottom and right edges.
 */
function markPoints(box: Rect): Array<[string, number, number]> {
  const right = Math.ceil(box.x + box.width) - 1;
  const bottom = Math.ceil(box.y + box.height) - 1;
  return [
    ['label at the top-left corner', Math.floor(box.x) + 1, Math.floor(box.y) + 1],
    ['outline on the bottom edge', box.x + box.width / 2, bottom],
    ['outline on the right edge', right, box.y + box.height / 2],
  ];
}

function assertDrawn(image: DecodedImage, ref: string, box: Rect, what: string): void {
  for (const [where, x, y] of markPoints(box)) {
    assert.is(pixel(image, x, y), rgba(markColour(ref)), `${what} (${ref}): ${where} at ${Math.floor(x)},${Math.floor(y)}`);
  }
}

function assertNotDrawn(image: DecodedImage, ref: string, box: Rect, what: string): void {
  for (const [where, x, y] of markPoints(box)) {
    assert.is.not(pixel(image, x, y), rgba(markColour(ref)), `${what} (${ref}): no ${where}`);
  }
}

const scale = (r: Rect, k: number): Rect => ({ x: r.x * k, y: r.y * k, width: r.width * k, height: r.height * k });

s('annotate: each label on its element, its outline along its edges, state_id the observation; a plain shot has none', async () => {
  const targetId = await openTab(ctx, '/team-console.html');
  const o = await observe(targetId);
  const mutationsBefore = await evaluate<number>(server, targetId, 'window.pageMutations');
  const shot = await shoot({ target_id: targetId, annotate: true });
  assert.is(shot.state_id, o.state_id);
  const image = decode(shot);
  const plain = decode(await shoot({ target_id: targetId }));
  assert.is(plain.width, image.width);
  const checked: Array<[string, string, string]> = [
    ['button', 'Invite member', '#invite'],
    ['button', 'Manage roles', '#roles'],
    ['button', 'Remove selected', '#remove'],
    ['link', 'Billing', 'a[href="/billing"]'],
    ['button', 'Edit Grace Hopper', '[data-id=u2] button'],
  ];
  for (const [role, name, selector] of checked) {
    const ref = refOf(o, role, name);
    const box = await boxOf(targetId, selector);
    assertDrawn(image, ref, box, name);
    assertNotDrawn(plain, ref, box, `${name}, plain screenshot`);
  }
  // The export button lies below the fold: not drawn, and said so; the others were all drawn.
  const exportRef = refOf(o, 'button', 'Export members (CSV)');
  assert.ok(shot.not_drawn?.includes(exportRef), `${exportRef} is not drawn: ${JSON.stringify(shot.not_drawn)}`);
  for (const [role, name] of checked) assert.not.ok(shot.not_drawn?.includes(refOf(o, role, name)), `${name} is drawn`);
  assert.is(plain.width, shot.width);
  assert.is(await evaluate<number>(server, targetId, 'window.pageMutations'), mutationsBefore, 'the page saw no mutation');
});

s('refs: only those are drawn', async () => {
  const targetId = await openTab(ctx, '/team-console.html');
  const o = await observe(targetId);
  const invite = refOf(o, 'button', 'Invite member');
  const roles = refOf(o, 'button', 'Manage roles');
  const shot = await shoot({ target_id: targetId, annotate: true, refs: [invite] });
  assert.equal(shot.not_drawn, []);
  const image = decode(shot);
  assertDrawn(image, invite, await boxOf(targetId, '#invite'), 'the ref asked for');
  assertNotDrawn(image, roles, await boxOf(targetId, '#roles'), 'a ref not asked for');
});

s('masking still applies to a password field in an annotated screenshot', async () => {
  const targetId = await openTab(ctx, '/team-console.html');
  const o = await observe(targetId);
  const password = await boxOf(targetId, '#current-password');
  const image = decode(await shoot({ target_id: targetId, annotate: true }));
  const field = o.elements.find((e) => e.role === 'textbox' && /password/i.test(e.name));
  assert.ok(field, 'the password field has a ref');
  assertDrawn(image, field!.ref, password, 'the password field');
  // Inside the outline, right of the label: one black box.
  const inside = { x: Math.ceil(password.x) + 48, y: Math.ceil(password.y) + 4, width: password.width - 56, height: password.height - 8 };
  assert.equal([...coloursIn(image, inside).keys()], [BLACK], 'the field is masked under its annotation');
});

s('boxes are those of the page now: scrolled after the observation, the refs are drawn where they are', async () => {
  const targetId = await openTab(ctx, '/team-console.html');
  const o = await observe(targetId);
  await evaluate(server, targetId, `document.getElementById('export').scrollIntoView({ block: 'center' })`);
  const shot = await shoot({ target_id: targetId, annotate: true });
  const exportRef = refOf(o, 'button', 'Export members (CSV)');
  const invite = refOf(o, 'button', 'Invite member');
  assert.not.ok(shot.not_drawn?.includes(exportRef), 'the export button is drawn now');
  assert.ok(shot.not_drawn?.includes(invite), 'the toolbar scrolled out of the image');
  assertDrawn(decode(shot), exportRef, await boxOf(targetId, '#export'), 'the export button, scrolled into view');
});

s('max_side, full_page, ref and jpeg: boxes mapped to image px', async () => {
  const targetId = await openTab(ctx, '/team-console.html');
  const o = await observe(targetId);
  const invite = refOf(o, 'button', 'Invite member');
  const viewportWidth = await evaluate<number>(server, targetId, 'document.documentElement.clientWidth');
  const small = await shoot({ target_id: targetId, annotate: true, max_side: Math.floor(viewportWidth / 2) });
  assert.ok(small.scale !== undefined && small.scale < 0.51, `scaled down: ${small.scale}`);
  assertDrawn(decode(small), invite, scale(await boxOf(targetId, '#invite'), small.scale!), 'scaled down');

  const whole = await shoot({ target_id: targetId, annotate: true, full_page: true });
  const exportRef = refOf(o, 'button', 'Export members (CSV)');
  assert.not.ok(whole.not_drawn?.includes(exportRef), 'the whole page holds the export button');
  const scrollY = await evaluate<number>(server, targetId, 'scrollY');
  const box = await boxOf(targetId, '#export');
  assertDrawn(decode(whole), exportRef, { ...box, y: box.y + scrollY }, 'the export button in the whole page');

  // One element's clip: its own mark sits at the image's corner; a ref outside the clip is not drawn.
  const roles = refOf(o, 'button', 'Manage roles');
  const clipped = await shoot({ target_id: targetId, annotate: true, ref: invite, refs: [invite, roles] });
  assert.equal(clipped.not_drawn, [roles]);
  assert.is(pixel(decode(clipped), 1, 1), rgba(markColour(invite)), 'the clipped element carries its label');

  const jpeg = await shoot({ target_id: targetId, annotate: true, format: 'jpeg', quality: 90 });
  assert.is(jpeg.mime, 'image/jpeg');
  assert.equal([...decodeBase64(jpeg.data).subarray(0, 3)], [0xff, 0xd8, 0xff]);
  assert.is(jpeg.state_id, o.state_id);
});

s('a device pixel ratio of 2: the image has twice the px, and each mark sits on its element there', async () => {
  const targetId = await openTab(ctx, '/team-console.html');
  const tab = tabOf(server, targetId);
  await tab.session.send('Emulation.setDeviceMetricsOverride', { width: 900, height: 700, deviceScaleFactor: 2, mobile: false });
  await waitUntil(() => evaluate<number>(server, targetId, 'devicePixelRatio'), (ratio) => ratio === 2, {
    what: 'the ratio applied',
    intervalMs: 20,
  });
  try {
    const o = await observe(targetId);
    const shot = await shoot({ target_id: targetId, annotate: true });
    assert.is(shot.width, 1800);
    const image = decode(shot);
    for (const [name, selector] of [['Invite member', '#invite'], ['Edit Alan Turing', '[data-id=u3] button']] as const) {
      assertDrawn(image, refOf(o, 'button', name), scale(await boxOf(targetId, selector), 2), `${name} at ratio 2`);
    }
  } finally {
    await client.call('tabs.close', { session_id: sessionId, target_id: targetId });
  }
});

s('refs inside a same-origin and a cross-site (out-of-process) iframe are drawn where their frames show them', async () => {
  const targetId = await openTab(ctx, '/login.html?cross=1');
  const tab = tabOf(server, targetId);
  const laidOut = `(document.getElementById('frame-password')?.getBoundingClientRect().width ?? 0) > 0`;
  const cross = await waitUntil(
    async () => {
      const frame = tab.frames.list().find((f) => f.crossProcess);
      const ready = frame
        ? await frame.session.send('Runtime.evaluate', { expression: laidOut, returnByValue: true }).then(
          (r) => r.result.value === true,
          () => false,
        )
        : false;
      return ready ? frame : undefined;
    },
    Boolean,
    { what: 'the cross-site frame laid out', intervalMs: 50 },
  );
  await waitUntil(
    () =>
      evaluate<boolean>(
        server,
        targetId,
        `(() => { const d = document.getElementById('frame').contentDocument; return !!d && ${laidOut.replaceAll('document', 'd')}; })()`,
      ),
    Boolean,
    {
      what: 'the same-origin frame laid out',
      intervalMs: 50,
    },
  );
  const o = await observe(targetId);
  const inFrames = o.elements.filter((e) => e.name === 'Frame password');
  const crossRef = inFrames.find((e) => e.frame_id === cross!.id)?.ref;
  const sameRef = inFrames.find((e) => e.frame_id !== cross!.id && e.frame_id !== tab.mainFrameId)?.ref;
  assert.ok(crossRef && sameRef, `a ref in each frame: ${JSON.stringify(inFrames)}`);
  const local = JSON.parse(
    (await cross!.session.send('Runtime.evaluate', {
      expression: `JSON.stringify(document.getElementById('frame-password').getBoundingClientRect())`,
      returnByValue: true,
    })).result.value as string,
  ) as Rect;
  const [boxes, origin] = await evaluate<[Record<'same', Rect>, [number, number]]>(
    server,
    targetId,
    `(() => {
      const content = (iframe) => { const r = iframe.getBoundingClientRect(); const st = getComputedStyle(iframe); return [r.left + iframe.clientLeft + parseFloat(st.paddingLeft), r.top + iframe.clientTop + parseFloat(st.paddingTop)]; };
      const frame = document.getElementById('frame');
      const [fx, fy] = content(frame);
      const r = frame.contentDocument.getElementById('frame-password').getBoundingClientRect();
      return [{ same: { x: r.x + fx, y: r.y + fy, width: r.width, height: r.height } }, content(document.getElementById('cross-frame'))];
    })()`,
  );
  const shot = await shoot({ target_id: targetId, annotate: true, refs: [sameRef, crossRef] });
  assert.equal(shot.not_drawn, []);
  const image = decode(shot);
  assertDrawn(image, sameRef!, boxes.same, 'the field in the same-origin frame');
  assertDrawn(
    image,
    crossRef!,
    { x: origin[0] + local.x, y: origin[1] + local.y, width: local.width, height: local.height },
    'the field in the cross-site frame',
  );
});

s('errors: a ref not in the state, no observation, refs without annotate, a document changed since', async () => {
  const targetId = await openTab(ctx, '/team-console.html');
  const never = await client.callError('screenshot', { session_id: sessionId, target_id: targetId, annotate: true });
  assert.is(never.data?.error_type, 'invalid_params');
  assert.match(never.message, /observe first/);

  const o = await observe(targetId);
  const unknown = await client.callError('screenshot', {
    session_id: sessionId,
    target_id: targetId,
    annotate: true,
    refs: [o.elements[0]!.ref, '@999'],
  });
  assert.is(unknown.data?.error_type, 'invalid_params');
  assert.match(unknown.message, /@999 is not a ref of state/);
  assert.equal((unknown.data?.['issues'] as Array<{ path: string }>).map((i) => i.path), ['refs.1']);

  const bare = await client.callError('screenshot', { session_id: sessionId, target_id: targetId, refs: [o.elements[0]!.ref] });
  assert.is(bare.data?.error_type, 'invalid_params');

  // The new document committed (its loader is the tab's), not the old one still answering.
  const observed = tabOf(server, targetId).frames.get(targetId)?.loaderId;
  await evaluate(server, targetId, `location.reload()`);
  await waitUntil(() => tabOf(server, targetId).frames.get(targetId)?.loaderId, (now) => now !== observed, {
    what: 'the reloaded document',
  });
  await documentLoaded(server, targetId, '/team-console.html');
  const changed = await client.callError('screenshot', { session_id: sessionId, target_id: targetId, annotate: true });
  assert.is(changed.data?.error_type, 'invalid_params');
  assert.match(changed.message, /document changed since state/);
});

s.run();

// screenshot against real pages (PROTOCOL.md §10, §11): formats, full page, element clips, and
// password inputs masked in the light DOM, closed and open shadow roots, a same-origin iframe
// and a cross-site (out-of-process) iframe, read back from the decoded pixels.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import type { TestClient } from '../helpers/client.ts';
import { evaluate, tabOf } from '../helpers/page.ts';
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
const CLOSED_STYLE = 'width: 200px; font: 18px monospace; color: rgb(1, 2, 3)';

const s = suite('screenshot');
let server: TestServer;
let client: TestClient;
let sessionId: string;

const ctx = withSession(s, 'screenshot', (context) => ({ server, client, sessionId } = context));

const open = (path: string) => openTab(ctx, path);

function shoot(params: Record<string, unknown> = {}): Promise<Shot> {
  return client.call('screenshot', { session_id: sessionId, ...params });
}

function observe(targetId: string): Promise<Observation> {
  return client.call('observe', { session_id: sessionId, target_id: targetId });
}

function decode(shot: Shot): DecodedImage {
  const image = decodePng(decodeBase64(shot.data));
  assert.is(image.width, shot.width, 'width is the image width');
  assert.is(image.height, shot.height, 'height is the image height');
  return image;
}

/** The rectangle without its outer pixel: boxes have fractional edges that blend with the page. */
const inner = (r: Rect): Rect => ({
  x: Math.ceil(r.x) + 1,
  y: Math.ceil(r.y) + 1,
  width: Math.floor(r.width) - 3,
  height: Math.floor(r.height) - 3,
});

function assertMasked(image: DecodedImage, rect: Rect, what: string): void {
  const colours = coloursIn(image, inner(rect));
  assert.equal(
    [...colours.keys()],
    [BLACK],
    `${what} ${JSON.stringify(rect)} is one black box, got ${JSON.stringify([...colours].slice(0, 5))}`,
  );
}

/** Viewport rectangles of the inputs of login.html (the frame's input offset by its iframe's content box). */
function loginBoxes(targetId: string): Promise<Record<'username' | 'password' | 'closed' | 'open' | 'frame', Rect>> {
  return evaluate(
    server,
    targetId,
    `(() => {
    const box = (el, [ox, oy] = [0, 0]) => { const r = el.getBoundingClientRect(); return { x: r.left + ox, y: r.top + oy, width: r.width, height: r.height }; };
    const frame = document.getElementById('frame');
    return {
      username: box(document.getElementById('username')),
      password: box(document.getElementById('password')),
      closed: box(window.closedPassword),
      open: box(document.getElementById('open-host').shadowRoot.querySelector('input')),
      frame: box(frame.contentDocument.getElementById('frame-password'), contentOrigin(frame)),
    };
    function contentOrigin(iframe) {
      const r = iframe.getBoundingClientRect();
      const style = getComputedStyle(iframe);
      return [r.left + iframe.clientLeft + parseFloat(style.paddingLeft), r.top + iframe.clientTop + parseFloat(style.paddingTop)];
    }
  })()`,
  );
}

/** Waits until the same-origin frame of login.html has its input (it loads after the page). */
async function loginReady(targetId: string): Promise<void> {
  await waitUntil(
    () => evaluate<boolean>(server, targetId, `!!document.getElementById('frame').contentDocument?.getElementById('frame-password')`),
    Boolean,
    { what: 'login-frame.html loaded', intervalMs: 50 },
  );
}

/** What the page can see of its own state: inline styles, style sheets, light-DOM mutations. */
function pageState(targetId: string) {
  return evaluate<
    { sheets: number; frameSheets: number; mutations: number; closedStyle: string | null; openStyle: string | null; colours: string[] }
  >(
    server,
    targetId,
    `(() => {
      const frameDoc = document.getElementById('frame').contentDocument;
      const openInput = document.getElementById('open-host').shadowRoot.querySelector('input');
      return {
        sheets: document.styleSheets.length,
        frameSheets: frameDoc.styleSheets.length,
        mutations: window.lightMutations,
        closedStyle: window.closedPassword.getAttribute('style'),
        openStyle: openInput.getAttribute('style'),
        colours: [document.getElementById('password'), window.closedPassword, openInput, frameDoc.getElementById('frame-password')]
          .map((el) => getComputedStyle(el).color + ' / ' + getComputedStyle(el).backgroundColor),
      };
    })()`,
  );
}

s('password inputs are black boxes: light DOM, closed and open shadow roots, same-origin iframe', async () => {
  const targetId = await open('/login.html');
  await loginReady(targetId);
  const before = await pageState(targetId);
  assert.is(before.closedStyle, CLOSED_STYLE);
  assert.is(before.openStyle, null);
  const boxes = await loginBoxes(targetId);
  // Inspector sheets the screenshots make (the page's renderer reports them on the tab's session).
  const inspectorSheets: string[] = [];
  const listening = tabOf(server, targetId).session.on('CSS.styleSheetAdded', (e) => {
    if (e.header.origin === 'inspector') inspectorSheets.push(e.header.styleSheetId);
  });
  const shot = await shoot({ target_id: targetId });
  assert.is(shot.mime, 'image/png');
  const image = decode(shot);
  assertMasked(image, boxes.password, 'the light-DOM password input');
  assertMasked(image, boxes.closed, 'the password input in a closed shadow root');
  assertMasked(image, boxes.open, 'the password input in an open shadow root');
  assertMasked(image, boxes.frame, 'the password input of the same-origin iframe');
  const username = coloursIn(image, inner(boxes.username));
  assert.ok(username.size > 10, `the username input is drawn as usual (${username.size} colours)`);
  assert.not.ok(username.has(BLACK) && username.size === 1);

  // Everything is as it was: the same inline styles (the closed input's exactly, the open one's
  // absent), the same style sheets, no mutation of the light DOM, the inputs' own colours.
  const after = await pageState(targetId);
  assert.equal(after, before);

  // Again: the cached stylesheets and isolated world are reused, and still mask.
  const made = inspectorSheets.length;
  assert.ok(made >= 1 && made <= 2, `one sheet per document at most (page, iframe): ${inspectorSheets}`);
  const again = decode(await shoot({ target_id: targetId }));
  await shoot({ target_id: targetId });
  listening.dispose();
  assert.is(inspectorSheets.length, made, 'no new inspector sheet for later screenshots');
  assertMasked(again, boxes.password, 'the light-DOM input, second screenshot');
  assertMasked(again, boxes.closed, 'the closed-shadow input, second screenshot');
  assert.equal(await pageState(targetId), before);
});

s('a password input in a cross-site (out-of-process) iframe is masked through its own session', async () => {
  const targetId = await open('/login.html?cross=1');
  await loginReady(targetId);
  const tab = tabOf(server, targetId);
  const cross = await waitUntil(
    async () => {
      const frame = tab.frames.list().find((f) => f.crossProcess);
      const ready = frame
        ? await frame.session
          // Laid out, not only parsed: its box is what the mask must cover.
          .send('Runtime.evaluate', {
            expression: `(document.getElementById('frame-password')?.getBoundingClientRect().width ?? 0) > 0`,
            returnByValue: true,
          })
          .then((r) => r.result.value === true, () => false)
        : false;
      return ready ? frame : undefined;
    },
    Boolean,
    { what: 'the cross-site frame loaded', intervalMs: 50 },
  );
  const inside = (
    await cross!.session.send('Runtime.evaluate', {
      expression: `JSON.stringify(document.getElementById('frame-password').getBoundingClientRect())`,
      returnByValue: true,
    })
  ).result.value as string;
  const local = JSON.parse(inside) as { left: number; top: number; width: number; height: number };
  const origin = await evaluate<[number, number]>(
    server,
    targetId,
    `(() => {
    const iframe = document.getElementById('cross-frame');
    const r = iframe.getBoundingClientRect();
    const style = getComputedStyle(iframe);
    return [r.left + iframe.clientLeft + parseFloat(style.paddingLeft), r.top + iframe.clientTop + parseFloat(style.paddingTop)];
  })()`,
  );
  const box = { x: origin[0] + local.left, y: origin[1] + local.top, width: local.width, height: local.height };
  const image = decode(await shoot({ target_id: targetId }));
  assertMasked(image, box, 'the password input of the cross-site iframe');
  const boxes = await loginBoxes(targetId);
  assertMasked(image, boxes.password, 'the light-DOM password input');

  // An element clip inside the OOPIF: offset by its iframe's content box (border 7 + padding 5),
  // so the image of a password input is nothing but its mask.
  const o = await observe(targetId);
  const crossInput = o.elements.find((e) => e.frame_id === cross!.id && e.role === 'textbox');
  assert.ok(crossInput, JSON.stringify(o.elements));
  const clipped = await shoot({ target_id: targetId, ref: crossInput!.ref });
  assert.ok(
    Math.abs(clipped.width - box.width) <= 1 && Math.abs(clipped.height - box.height) <= 1,
    `${clipped.width}x${clipped.height} vs ${JSON.stringify(box)}`,
  );
  const pixels = decode(clipped);
  assertMasked(pixels, { x: 0, y: 0, width: pixels.width, height: pixels.height }, 'the clipped cross-site password input');
});

s('format jpeg: image/jpeg with JPEG magic bytes and the viewport size; quality is accepted', async () => {
  const targetId = await open('/login.html');
  const viewport = await evaluate<[number, number]>(
    server,
    targetId,
    '[document.documentElement.clientWidth, document.documentElement.clientHeight]',
  );
  const shot = await shoot({ target_id: targetId, format: 'jpeg', quality: 60 });
  assert.is(shot.mime, 'image/jpeg');
  const bytes = decodeBase64(shot.data);
  assert.equal([...bytes.subarray(0, 3)], [0xff, 0xd8, 0xff]);
  assert.equal([shot.width, shot.height], viewport);
  const png = await shoot({ target_id: targetId });
  assert.equal([png.width, png.height], viewport, 'the default is the viewport');
});

s('full_page: the whole document, taller than the viewport', async () => {
  const targetId = await open('/login.html?tall=1');
  const [innerHeight, scrollHeight] = await evaluate<[number, number]>(
    server,
    targetId,
    '[innerHeight, document.documentElement.scrollHeight]',
  );
  const shot = await shoot({ target_id: targetId, full_page: true });
  assert.ok(shot.height > innerHeight, `${shot.height} > ${innerHeight}`);
  assert.ok(Math.abs(shot.height - scrollHeight) <= 1, `${shot.height} ≈ ${scrollHeight}`);
  decode(shot);
  const viewportAfter = await evaluate<number>(server, targetId, 'innerHeight');
  assert.is(viewportAfter, innerHeight, 'the viewport is left as it was');
});

s("ref: an image of about the element's size, from the current state or an older kept state", async () => {
  const targetId = await open('/login.html?tall=1');
  await loginReady(targetId);
  const o = await observe(targetId);
  const username = o.elements.find((e) => e.name === 'Username');
  const password = o.elements.find((e) => e.name === 'Password' && e.role === 'textbox');
  assert.ok(username && password, JSON.stringify(o.elements));
  const size = await evaluate<[number, number]>(
    server,
    targetId,
    `(() => { const r = document.getElementById('username').getBoundingClientRect(); return [r.width, r.height]; })()`,
  );
  const shot = await shoot({ target_id: targetId, ref: username!.ref });
  assert.ok(Math.abs(shot.width - size[0]) <= 1 && Math.abs(shot.height - size[1]) <= 1, `${shot.width}x${shot.height} vs ${size}`);
  const image = decode(shot);
  assert.ok(coloursIn(image, { x: 0, y: 0, width: image.width, height: image.height }).size > 10, 'the username is drawn');

  const masked = decode(await shoot({ target_id: targetId, ref: password!.ref }));
  assertMasked(masked, { x: 0, y: 0, width: masked.width, height: masked.height }, 'a password input clipped alone');
  // In a same-process iframe the quads are already in the top viewport.
  const framePassword = o.elements.find((e) => e.name === 'Frame password' && e.frame_id !== targetId);
  assert.ok(framePassword, JSON.stringify(o.elements));
  const inFrame = decode(await shoot({ target_id: targetId, ref: framePassword!.ref }));
  assert.ok(Math.abs(inFrame.width - size[0]) <= 1 && Math.abs(inFrame.height - size[1]) <= 1, `${inFrame.width}x${inFrame.height}`);
  assertMasked(inFrame, { x: 0, y: 0, width: inFrame.width, height: inFrame.height }, 'the iframe password input clipped alone');

  // An element below the fold is scrolled into view first.
  await evaluate(server, targetId, 'window.scrollTo(0, document.documentElement.scrollHeight)');
  const afterScroll = await shoot({ target_id: targetId, ref: username!.ref });
  assert.ok(coloursIn(decode(afterScroll), { x: 0, y: 0, width: afterScroll.width, height: afterScroll.height }).size > 10);

  // A superseded state still names the element while its document lives.
  const newer = await observe(targetId);
  assert.is.not(newer.state_id, o.state_id);
  const old = await shoot({ target_id: targetId, ref: username!.ref, state_id: o.state_id });
  assert.equal([old.width, old.height], [shot.width, shot.height]);

  // An element that is no longer rendered has nothing to show.
  await evaluate(server, targetId, `document.getElementById('username').style.display = 'none'`);
  const hidden = await client.callError('screenshot', {
    session_id: sessionId,
    target_id: targetId,
    ref: username!.ref,
    state_id: o.state_id,
  });
  assert.is(hidden.data?.error_type, 'invalid_params');
  assert.match(hidden.message, /no visible box/);
});

s('ref errors: unknown ref, unknown state, a state of another tab', async () => {
  const targetId = await open('/login.html');
  const o = await observe(targetId);
  const unknownRef = await client.callError('screenshot', { session_id: sessionId, target_id: targetId, ref: '@999' });
  assert.is(unknownRef.data?.error_type, 'invalid_params');
  assert.match(unknownRef.message, /@999 is not a ref of state/);
  const unknownState = await client.callError('screenshot', { session_id: sessionId, target_id: targetId, ref: '@1', state_id: 'st_nope' });
  assert.is(unknownState.data?.error_type, 'invalid_params');
  assert.match(unknownState.message, /state st_nope is unknown/);
  const otherTab = await open('/login.html');
  const wrongTab = await client.callError('screenshot', {
    session_id: sessionId,
    target_id: otherTab,
    ref: o.elements[0]!.ref,
    state_id: o.state_id,
  });
  assert.is(wrongTab.data?.error_type, 'invalid_params');
  assert.match(wrongTab.message, /not of tab/);
});

s('params: quality needs jpeg; full_page and ref exclude each other', async () => {
  const withPng = await client.callError('screenshot', { session_id: sessionId, format: 'png', quality: 50 });
  assert.is(withPng.data?.error_type, 'invalid_params');
  assert.equal((withPng.data?.issues as Array<{ path: string }>)[0]!.path, 'quality');
  const withDefault = await client.callError('screenshot', { session_id: sessionId, quality: 50 });
  assert.is(withDefault.data?.error_type, 'invalid_params');
  const outOfRange = await client.callError('screenshot', { session_id: sessionId, format: 'jpeg', quality: 101 });
  assert.is(outOfRange.data?.error_type, 'invalid_params');
  const both = await client.callError('screenshot', { session_id: sessionId, full_page: true, ref: '@1' });
  assert.is(both.data?.error_type, 'invalid_params');
  const webp = await client.callError('screenshot', { session_id: sessionId, format: 'webp' });
  assert.is(webp.data?.error_type, 'invalid_params');
});

s('a pending dialog: modal_blocked at once, and screenshots work again once it is handled', async () => {
  const targetId = await open('/login.html');
  const tab = tabOf(server, targetId);
  const opened = new Promise((resolve) => tab.dialogs.events.on('opened', resolve));
  await tab.session.send('Runtime.evaluate', { expression: `setTimeout(() => alert('x'))` });
  await opened;
  const started = Date.now();
  const error = await client.callError('screenshot', { session_id: sessionId, target_id: targetId });
  assert.is(error.data?.error_type, 'modal_blocked');
  assert.equal(error.data?.modal, { type: 'alert', message: 'x' });
  assert.ok(Date.now() - started < 2000, 'answered without waiting on the paused renderer');
  await tab.dialogs.pending!.session.send('Page.handleJavaScriptDialog', { accept: true });
  const shot = await shoot({ target_id: targetId });
  assert.ok(shot.width > 0);
});

s.run();

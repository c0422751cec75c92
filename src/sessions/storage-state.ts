// session.storage_state and session.create {storage_state} (PROTOCOL.md §13): cookies and
// per-origin localStorage in Playwright's storageState shape, so that files move between tools.
// Cookies go through the Storage domain of the browser context; localStorage needs a document of
// each origin, which the session's helper tab provides without any request leaving the browser
// (src/browser/blank-documents.ts). Cookie values are never logged: the CDP trace hides them
// (src/util/cdp-trace.ts).
import type { Cdp } from '../../protocol/generated/cdp.ts';
import { navigateFrame } from '../browser/navigation.ts';
import type { Tab } from '../browser/tab.ts';
import { ServerError } from '../errors.ts';
import type { StorageCookie, StorageState } from '../wire/index.ts';
import type { Deadline } from '../util/deadline.ts';
import type { Session } from './session.ts';

/** A cookie as session.create accepts it (Playwright files leave fields out). */
export interface CookieInput {
  name: string;
  value: string;
  domain: string;
  path?: string | undefined;
  expires?: number | undefined;
  httpOnly?: boolean | undefined;
  secure?: boolean | undefined;
  sameSite?: 'Strict' | 'Lax' | 'None' | undefined;
}

export interface StorageStateInput {
  cookies: CookieInput[];
  origins: Array<{ origin: string; localStorage: Array<{ name: string; value: string }> }>;
}

function toWireCookie(cookie: Cdp.Network.Cookie): StorageCookie {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path,
    // Playwright writes -1 for a session cookie; CDP says so with `session`.
    expires: cookie.session ? -1 : cookie.expires,
    httpOnly: cookie.httpOnly,
    secure: cookie.secure,
    sameSite: cookie.sameSite ?? 'Lax',
  };
}

function toCookieParam(cookie: CookieInput): Cdp.Network.CookieParam {
  return {
    name: cookie.name,
    value: cookie.value,
    domain: cookie.domain,
    path: cookie.path ?? '/',
    secure: cookie.secure ?? false,
    httpOnly: cookie.httpOnly ?? false,
    sameSite: cookie.sameSite ?? 'Lax',
    ...(cookie.expires !== undefined && cookie.expires > 0 ? { expires: cookie.expires } : {}),
  };
}

/** `https://host[:port]` as written by the URL parser, or undefined for anything else. */
function httpOrigin(text: string): string | undefined {
  try {
    const url = new URL(text);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.origin === text.replace(/\/$/, '') ? url.origin : undefined;
  } catch {
    return undefined;
  }
}

/** Runs `work` in the session's helper tab, opened for it and closed after. */
async function withHelper<T>(session: Session, deadline: Deadline, work: (tab: Tab) => Promise<T>): Promise<T> {
  const tab = await session.browser.newTab(session.browserContextId, deadline, session.storageHelperUrl);
  try {
    return await work(tab);
  } finally {
    await session.browser.closeTab(tab.targetId, deadline).catch(() => {});
  }
}

async function openOrigin(tab: Tab, origin: string, deadline: Deadline): Promise<void> {
  const outcome = await navigateFrame(tab.session, tab.mainFrameId, `${origin}/`, deadline);
  if (outcome.kind !== 'committed' || outcome.errorText) {
    throw new ServerError('internal_error', `could not open a document of ${origin} for its localStorage`);
  }
}

async function evaluate<T>(tab: Tab, expression: string): Promise<T> {
  // The helper's document is empty and runs no script of a page: its main world is safe.
  const { result, exceptionDetails } = await tab.session.send('Runtime.evaluate', { expression, returnByValue: true });
  if (exceptionDetails) throw new ServerError('internal_error', `localStorage: ${exceptionDetails.text}`);
  return result.value as T;
}

export async function readStorageState(session: Session, deadline: Deadline): Promise<StorageState> {
  const root = session.browser.connection.root;
  const { cookies } = await deadline.race(
    root.send('Storage.getCookies', { browserContextId: session.browserContextId }),
    'Storage.getCookies',
  );
  const origins: StorageState['origins'] = [];
  const wanted = session.origins();
  if (wanted.length > 0) {
    await withHelper(session, deadline, async (tab) => {
      for (const origin of wanted) {
        await openOrigin(tab, origin, deadline);
        const items = await evaluate<Array<[string, string]>>(tab, 'Object.entries(localStorage)');
        // As Playwright writes it: origins without localStorage are left out.
        if (items.length > 0) origins.push({ origin, localStorage: items.map(([name, value]) => ({ name, value })) });
      }
    });
  }
  return { cookies: cookies.map(toWireCookie), origins };
}

/** Applies a storage state to a fresh session (before its first tab is handed out). */
export async function writeStorageState(session: Session, state: StorageStateInput, deadline: Deadline): Promise<void> {
  const bad = state.origins.findIndex((entry) => httpOrigin(entry.origin) === undefined);
  if (bad !== -1) {
    const message = 'an origin is written like https://example.com (http or https, no path)';
    throw new ServerError('invalid_params', `storage_state.origins.${bad}.origin: ${message}`, {
      details: { issues: [{ path: `storage_state.origins.${bad}.origin`, message }] },
    });
  }
  if (state.cookies.length > 0) {
    const root = session.browser.connection.root;
    try {
      await deadline.race(
        root.send('Storage.setCookies', { browserContextId: session.browserContextId, cookies: state.cookies.map(toCookieParam) }),
        'Storage.setCookies',
      );
    } catch (error) {
      // Chromium refuses the whole list for one bad cookie: name it (never a value).
      const issues: Array<{ path: string; message: string }> = [];
      for (const [index, cookie] of state.cookies.entries()) {
        try {
          await root.send('Storage.setCookies', { browserContextId: session.browserContextId, cookies: [toCookieParam(cookie)] });
        } catch (single) {
          issues.push({
            path: `storage_state.cookies.${index}`,
            message: `Chromium refused cookie ${JSON.stringify(cookie.name)}: ${(single as Error).message}`,
          });
        }
      }
      if (issues.length === 0) throw error;
      throw new ServerError('invalid_params', issues[0]!.message, { details: { issues: issues.slice(0, 50) } });
    }
  }
  const origins = state.origins.filter((entry) => entry.localStorage.length > 0);
  if (origins.length === 0) return;
  await withHelper(session, deadline, async (tab) => {
    for (const entry of origins) {
      const origin = httpOrigin(entry.origin)!;
      await openOrigin(tab, origin, deadline);
      const items = JSON.stringify(entry.localStorage.map((item) => [item.name, item.value]));
      await evaluate(tab, `for (const [k, v] of ${items}) localStorage.setItem(k, v); true`);
      session.rememberOrigin(origin);
    }
  });
}

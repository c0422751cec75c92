// tabs.* and frames.* (PROTOCOL.md §5). An explicit id never changes the selection and never
// falls back to another tab or frame.
import { BLOCKED_BY_POLICY } from '../../actions/perform.ts';
import { navigateFrame } from '../../browser/navigation.ts';
import { ServerError } from '../../errors.ts';
import type { SessionRegistry } from '../../sessions/registry.ts';
import { Deadline, DeadlineExceededError } from '../../util/deadline.ts';
import { redactSecrets, redactUrl } from '../../util/redact.ts';
import type { Tab } from '../../browser/tab.ts';
import type { Session } from '../../sessions/session.ts';
import type { CallContext } from '../context.ts';
import type { AnyMethodDef } from '../define.ts';
import { framesList, framesSelect, tabsClose, tabsList, tabsNew, tabsSelect } from '../../wire/tabs.ts';
import { sessionMethod } from './common.ts';
import { observeForWire } from './observation.ts';

const NAVIGATION_BUDGET_MS = 30_000;
const FRAME_REFRESH_BUDGET_MS = 1_000;

export interface TabLimits {
  /** tabs.new is refused at this many open tabs (popups are never refused, but they count). */
  maxTabsPerSession: number;
}

export function tabMethods(registry: SessionRegistry, limits: TabLimits): AnyMethodDef[] {
  return [
    sessionMethod(registry, {
      ...tabsList,
      run: async (session) => {
        const tabs = session.tabs();
        // Fresh titles and URLs straight from the browser (events may still be in flight).
        const { targetInfos } = await session.browser.connection.root.send('Target.getTargets', {
          filter: [{ type: 'page' }],
        });
        const infos = new Map(targetInfos.map((info) => [info.targetId, info]));
        const selected = session.selectedTargetId;
        return {
          tabs: tabs.map((tab) => {
            const info = infos.get(tab.targetId);
            return {
              target_id: tab.targetId,
              url: redactUrl(info?.url ?? tab.url),
              title: redactSecrets(info?.title ?? tab.title, session.secrets),
              selected: tab.targetId === selected,
              ...(tab.openerId ? { opener_id: tab.openerId } : {}),
            };
          }),
        };
      },
    }),
    sessionMethod(registry, {
      ...tabsNew,
      run: async (session, params, { call, signal }) => {
        // Calls of a session run one at a time, so no other tabs.new can pass this check meanwhile.
        const open = session.tabs().length;
        if (open >= limits.maxTabsPerSession) {
          throw new ServerError(
            'invalid_request',
            `this session already has ${open} tabs and at most ${limits.maxTabsPerSession} may be opened with tabs.new; ` +
              'close one with tabs.close first (or start the server with a higher --max-tabs-per-session)',
            { details: { limit: 'tabs_per_session', max: limits.maxTabsPerSession, tabs: open } },
          );
        }
        if (params.url) {
          const verdict = session.traffic.policy.checkUrl(params.url);
          if (!verdict.allowed) {
            throw new ServerError(
              'forbidden',
              `${redactUrl(params.url)} is refused by the domain policy (${verdict.rule}); no tab was opened`,
              {
                details: { rule: verdict.rule, url: redactUrl(params.url) },
              },
            );
          }
        }
        const deadline = new Deadline(NAVIGATION_BUDGET_MS, { signal: session.closeSignal });
        const tab = await session.browser.newTab(session.browserContextId, deadline);
        if (params.select !== false) session.select(tab.targetId);
        const opened = params.url ? await load(session, tab, params.url, deadline, call) : { target_id: tab.targetId };
        if (!params.observe) return opened;
        // The page as loaded, whatever came of it: an error page or about:blank is a page too.
        call.progress?.('observing the new tab');
        const main = session.resolveFrame(tab, tab.mainFrameId);
        return {
          ...opened,
          observation: await observeForWire(session, tab, main, {
            signal,
            ...(params.max_bytes !== undefined ? { maxBytes: params.max_bytes } : {}),
          }),
        };
      },
    }),
    sessionMethod(registry, {
      ...tabsSelect,
      run: async (session, params) => {
        const tab = session.resolveTab(params.target_id);
        session.select(tab.targetId);
        return { target_id: tab.targetId };
      },
    }),
    sessionMethod(registry, {
      ...tabsClose,
      run: async (session, params) => {
        const tab = session.resolveTab(params.target_id);
        if (session.tabs().length <= 1) {
          throw new ServerError('last_tab', 'this is the last tab of the session; close the session instead', {
            details: { target_id: tab.targetId },
          });
        }
        await session.browser.closeTab(tab.targetId, new Deadline(10_000));
        return { closed: true as const };
      },
    }),
    sessionMethod(registry, {
      ...framesList,
      run: async (session, params) => {
        const tab = session.resolveTab(params.target_id);
        // With a dialog open the renderer answers nothing: list what events told us.
        if (!tab.dialogs.pending) await tab.refreshFrames(FRAME_REFRESH_BUDGET_MS);
        return {
          frames: tab.frames.list().map((frame) => ({
            frame_id: frame.id,
            parent_frame_id: frame.parentId ?? null,
            url: redactUrl(frame.url),
            name: redactSecrets(frame.name),
            cross_process: frame.crossProcess,
          })),
        };
      },
    }),
    sessionMethod(registry, {
      ...framesSelect,
      run: async (session, params) => {
        const tab = session.resolveTab(params.target_id);
        const frame = session.resolveFrame(tab, params.frame_id);
        session.selectFrame(tab, frame.id);
        return { frame_id: frame.id };
      },
    }),
  ];
}

/** Loads `url` in the new tab up to its load event (bounded): the tabs.new result, error_text if it did not load. */
async function load(
  session: Session,
  tab: Tab,
  url: string,
  deadline: Deadline,
  call: CallContext,
): Promise<{ target_id: string; error_text?: string }> {
  call.progress?.('loading the new tab');
  try {
    const outcome = await navigateFrame(tab.session, tab.mainFrameId, url, deadline);
    if (outcome.kind === 'committed') {
      // Listed once its scripts ran: an app whose scripts come after DOMContentLoaded is ready
      // only at its load event (bounded; PROTOCOL.md §5).
      call.progress?.('waiting for the page to load');
      await tab.whenLoaded(tab.mainFrameId, outcome.loaderId, deadline.remaining());
    }
    let errorText = 'errorText' in outcome ? outcome.errorText : undefined;
    if (errorText && BLOCKED_BY_POLICY.test(errorText)) {
      const rule = session.traffic.log.lastBlockedDocument(tab.targetId);
      errorText = `${errorText}: refused by the domain policy${rule ? ` (${rule})` : ''} on the way (a redirect)`;
    }
    return errorText ? { target_id: tab.targetId, error_text: errorText } : { target_id: tab.targetId };
  } catch (error) {
    if (error instanceof DeadlineExceededError) {
      return { target_id: tab.targetId, error_text: `the page did not reach DOMContentLoaded within ${NAVIGATION_BUDGET_MS} ms` };
    }
    throw error;
  }
}

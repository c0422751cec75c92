// Every method of the wire, by name: the table rpc.discover, the client types and the test
// client's result checks are read from.
import type { z } from 'zod';
import { act, cancel } from './act.ts';
import { downloadsList, eventsPoll, eventsSubscribe, eventsUnsubscribe } from './events.ts';
import type { WireMethod } from './method.ts';
import { dialogHandle, fileChooserResolve } from './modal.ts';
import { observe } from './observation.ts';
import { pagePdf } from './pdf.ts';
import { screencastStart, screencastStop } from './screencast.ts';
import { screenshot } from './screenshot.ts';
import { networkList } from './network.ts';
import { cdpSend, rpcDiscover, serverInfo } from './server.ts';
import { sessionClose, sessionCreate, sessionList, sessionStorageState } from './sessions.ts';
import { traceExport, traceStart, traceStop } from './traces.ts';
import { framesList, framesSelect, tabsClose, tabsList, tabsNew, tabsSelect } from './tabs.ts';
import { wait } from './wait.ts';

type ByName<T extends readonly WireMethod[]> = { [M in T[number] as M['name']]: M };

function byName<const T extends readonly WireMethod[]>(methods: T): ByName<T> {
  return Object.fromEntries(methods.map((method) => [method.name, method])) as ByName<T>;
}

/** In the order rpc.discover lists them. `cdp.send` exists only with --allow-raw-cdp. */
export const METHODS = byName([
  sessionCreate,
  sessionList,
  sessionClose,
  sessionStorageState,
  tabsList,
  tabsNew,
  tabsSelect,
  tabsClose,
  framesList,
  framesSelect,
  observe,
  screenshot,
  pagePdf,
  screencastStart,
  screencastStop,
  eventsSubscribe,
  eventsUnsubscribe,
  eventsPoll,
  act,
  cancel,
  wait,
  dialogHandle,
  fileChooserResolve,
  downloadsList,
  networkList,
  traceStart,
  traceStop,
  traceExport,
  serverInfo,
  rpcDiscover,
  cdpSend,
]);

export type MethodName = keyof typeof METHODS;

/** Method name → what a client sends (`params`) and what a successful call answers (`result`). */
export type Methods = {
  [M in MethodName]: { params: z.input<(typeof METHODS)[M]['params']>; result: z.infer<(typeof METHODS)[M]['result']> };
};

export type ParamsOf<M extends MethodName> = Methods[M]['params'];
export type ResultOf<M extends MethodName> = Methods[M]['result'];

export function isMethodName(name: string): name is MethodName {
  return Object.hasOwn(METHODS, name);
}

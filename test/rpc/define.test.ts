// defineMethod ties a handler to its method's schemas: the params it receives are the params
// schema's output, and what it answers must be the result schema's shape. The `@ts-expect-error`
// lines are the test: tsc (and deno check) fail if any of them compiles. An extra field is not a
// type error (TypeScript types are open); the e2e client's strict result check catches those.
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { defineMethod } from '../../src/rpc/define.ts';
import { serverInfo } from '../../src/wire/server.ts';
import { sessionList } from '../../src/wire/sessions.ts';
import { tabsNew } from '../../src/wire/tabs.ts';

const s = suite('defineMethod');

const ping = {
  name: 'ping',
  summary: 'Answers pong',
  params: z.object({ n: z.number().default(1) }),
  result: z.object({ pong: z.number() }),
};

s('a handler answering the result shape compiles and runs with parsed params', async () => {
  const method = defineMethod({ ...ping, handler: async (params) => ({ pong: params.n }) });
  const call = { connection: {} as never, principal: { id: 'p' } };
  assert.equal(await method.handler(ping.params.parse({}), call), { pong: 1 });
});

s('another shape does not compile', () => {
  // @ts-expect-error: pong must be a number
  defineMethod({ ...ping, handler: async () => ({ pong: 'one' }) });
  // @ts-expect-error: pong is missing
  defineMethod({ ...ping, handler: async () => ({ ping: 1 }) });
  // @ts-expect-error: a param the schema does not have
  defineMethod({ ...ping, handler: async (params) => ({ pong: params.m }) });
  // @ts-expect-error: session.list answers sessions, not tabs
  defineMethod({ ...sessionList, handler: async () => ({ tabs: [] }) });
  // @ts-expect-error: tabs.new's target_id is a string
  defineMethod({ ...tabsNew, handler: async () => ({ target_id: 7 }) });
  // @ts-expect-error: server.info's name is the literal "pagewire"
  defineMethod({ ...serverInfo, handler: async () => ({ name: 'other' }) });
  // @ts-expect-error: a method without a result schema
  defineMethod({ name: 'x', summary: 'x', params: z.object({}), handler: async () => ({}) });
  assert.ok(true, 'checked by the type checker');
});

s.run();

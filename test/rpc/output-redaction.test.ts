import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { z } from 'zod';
import { ServerError } from '../../src/errors.ts';
import { defineMethod } from '../../src/rpc/define.ts';
import { redactMethodOutputs } from '../../src/rpc/output-redaction.ts';
import type { CallContext } from '../../src/rpc/context.ts';

const s = suite('output redaction');
const call = {} as CallContext;
const SECRET = 'tok-3f9a/x';
const known = () => [{ exact: SECRET }, { exact: encodeURIComponent(SECRET) }];

const method = (handler: () => Promise<unknown>) =>
  redactMethodOutputs([defineMethod({ name: 'm', summary: '', params: z.object({}), result: z.unknown(), handler })], known)[0]!;

s('every string of a result, however deep, loses the value in every form; images are left as they are', async () => {
  const result = await method(async () => ({
    title: `hello ${SECRET}`,
    nested: [{ url: `/p/${encodeURIComponent(SECRET)}` }],
    screenshot: { mime: 'image/png', data: `${SECRET}AAAA` },
    count: 3,
  })).handler({}, call);
  assert.equal(result, {
    title: 'hello [redacted]',
    nested: [{ url: '/p/[redacted]' }],
    screenshot: { mime: 'image/png', data: `${SECRET}AAAA` },
    count: 3,
  });
});

s('errors too: a ServerError keeps its word with message and details scrubbed; other errors keep their name', async () => {
  try {
    await method(async () => {
      throw new ServerError('forbidden', `no ${SECRET} here`, { details: { rule: SECRET } });
    }).handler({}, call);
    assert.unreachable();
  } catch (error) {
    assert.instance(error, ServerError);
    assert.is((error as ServerError).type, 'forbidden');
    assert.is((error as Error).message, 'no [redacted] here');
    assert.equal((error as ServerError).details, { rule: '[redacted]' });
  }
  try {
    await method(async () => {
      throw new TypeError(`bad ${SECRET}`);
    }).handler({}, call);
    assert.unreachable();
  } catch (error) {
    assert.is((error as Error).name, 'TypeError');
    assert.is((error as Error).message, 'bad [redacted]');
  }
});

s.run();

// JSON-RPC 2.0 dispatch for one inbound text frame. The envelope, batch and lookup rules
// are ours rather than json-rpc-2.0's JSONRPCServer, whose defaults are wrong for us
// (STYLE.md A5): it answers `[]` with nothing and a one-element batch with a bare object,
// rejects the whole batch on a `null` element, finds `toString` on Object.prototype and
// reports unknown errors with code 0. The library still provides the wire model.
import { createJSONRPCErrorResponse, createJSONRPCSuccessResponse, type JSONRPCID, type JSONRPCResponse } from 'json-rpc-2.0';
import type { z } from 'zod';
import { type Logger, silentLogger } from '../util/log.ts';
import type { CallContext } from './context.ts';
import type { AnyMethodDef } from './define.ts';
import { isUnexpected, type JsonRpcErrorObject, protocolError, toJsonRpcError } from './errors.ts';
import { nestsDeeperThan, outlineJson, type ReadId } from './json-outline.ts';

/**
 * Longest batch accepted. A batch runs its calls concurrently, so an unbounded one would let
 * a single frame start any number of browser operations; a longer one is refused whole.
 */
export const MAX_BATCH_LENGTH = 100;
/** `data.issues` is cut here: a huge invalid object must not produce a huge reply. */
const MAX_ISSUES = 50;
/** So is each issue's text: zod echoes unknown keys, and one key may be most of a megabyte. */
const MAX_ISSUE_TEXT = 300;
/**
 * Deepest array/object nesting accepted. V8 parses deeply nested JSON slowly (a 1 MiB frame of
 * `[` takes seconds, blocking every client), so deeper messages are refused before parsing.
 */
export const MAX_NESTING_DEPTH = 128;

export interface RpcServerOptions {
  methods: readonly AnyMethodDef[];
  log?: Logger;
  maxBatchLength?: number;
}

export interface ParamIssue {
  /** Dotted path into params (`actions.0.ref`); empty for the params object itself. */
  readonly path: string;
  readonly message: string;
}

/**
 * Requests of one connection in flight at once. Every request counts, each batch element on its
 * own; the one past `max` is answered at once with invalid_request (`data.limit`, `data.max`).
 */
export class PendingLimit {
  readonly max: number;
  readonly #onChange: ((delta: 1 | -1) => void) | undefined;
  #active = 0;

  constructor(max: number, onChange?: (delta: 1 | -1) => void) {
    this.max = max;
    this.#onChange = onChange;
  }

  get active(): number {
    return this.#active;
  }

  tryEnter(): boolean {
    if (this.#active >= this.max) return false;
    this.#active++;
    this.#onChange?.(1);
    return true;
  }

  leave(): void {
    this.#active--;
    this.#onChange?.(-1);
  }
}

/** What one method call came to: its result, or the JSON-RPC error object it answers with. */
export type CallOutcome = { ok: true; result: unknown } | { ok: false; error: JsonRpcErrorObject };

/** A batch element: parsed (to be read as a request), or refused before parsing (a notification: no response). */
type BatchElement = { kind: 'parsed'; value: unknown } | { kind: 'refused'; response: JSONRPCResponse | undefined };

/** One parsed element: either a call to run or an error to answer with. */
type Envelope =
  | { kind: 'invalid'; id: JSONRPCID; message: string }
  | { kind: 'call'; id: JSONRPCID; isNotification: boolean; method: string; params: unknown };

export class RpcServer {
  readonly #methods = new Map<string, AnyMethodDef>();
  readonly #log: Logger;
  readonly #maxBatchLength: number;

  constructor(options: RpcServerOptions) {
    for (const method of options.methods) {
      if (this.#methods.has(method.name)) throw new Error(`duplicate RPC method ${method.name}`);
      this.#methods.set(method.name, method);
    }
    this.#log = options.log ?? silentLogger;
    this.#maxBatchLength = options.maxBatchLength ?? MAX_BATCH_LENGTH;
  }

  /** The method table in registration order (for rpc.discover and docs). */
  get methods(): readonly AnyMethodDef[] {
    return [...this.#methods.values()];
  }

  /**
   * Handles one inbound text frame and resolves to the reply text, or to undefined when
   * nothing must be sent (a notification, or a batch of notifications). Never rejects.
   */
  async handle(text: string, call: CallContext, limit?: PendingLimit): Promise<string | undefined> {
    if (nestsDeeperThan(text, MAX_NESTING_DEPTH)) return this.#handleTooDeep(text, call, limit);
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return serialize(errorResponse(null, protocolError('parse_error', 'Parse error: the message is not valid JSON')));
    }

    if (!Array.isArray(payload)) {
      const response = await this.#handleOne(payload, call, limit);
      return response === undefined ? undefined : this.#serializeSafely(response);
    }
    if (payload.length === 0) {
      return serialize(errorResponse(null, protocolError('invalid_request', 'Invalid request: empty batch')));
    }
    if (payload.length > this.#maxBatchLength) return serialize(this.#batchTooLong());
    return this.#handleBatch(
      payload.map((value): BatchElement => ({ kind: 'parsed', value })),
      call,
      limit,
    );
  }

  /**
   * A text nested deeper than the limit is never parsed whole. Each request in it is still
   * answered with its own id where the outline can read one: a request object gets its refusal;
   * a batch gets an array, the elements within the limit parsed and run as usual. An object
   * without an `id` member is a notification and is never answered, in a batch neither.
   */
  #handleTooDeep(text: string, call: CallContext, limit: PendingLimit | undefined): Promise<string | undefined> | string | undefined {
    const outline = outlineJson(text);
    if (outline?.elements === undefined) {
      const refusal = this.#tooDeep(outline === undefined ? null : outline.root.id);
      return refusal === undefined ? undefined : serialize(refusal);
    }
    if (outline.elements.length > this.#maxBatchLength) return serialize(this.#batchTooLong());
    return this.#handleBatch(
      outline.elements.map(
        (element): BatchElement =>
          element.depth > MAX_NESTING_DEPTH
            ? { kind: 'refused', response: this.#tooDeep(element.id) }
            : { kind: 'parsed', value: JSON.parse(text.slice(element.start, element.end)) },
      ),
      call,
      limit,
    );
  }

  /**
   * The refusal of a request nested too deep, under its own id (null when it has none that is
   * valid, or the text is not a request object); undefined for a notification, which is not
   * answered (JSON-RPC 2.0 §4.1).
   */
  #tooDeep(id: ReadId): JSONRPCResponse | undefined {
    if (id === undefined) {
      this.#log.debug('notification dropped: nested too deep', { max: MAX_NESTING_DEPTH });
      return undefined;
    }
    return errorResponse(
      id,
      protocolError('invalid_request', `Invalid request: nested deeper than ${MAX_NESTING_DEPTH} levels`, {
        limit: 'nesting_depth',
        max: MAX_NESTING_DEPTH,
      }),
    );
  }

  #batchTooLong(): JSONRPCResponse {
    return errorResponse(
      null,
      protocolError('invalid_request', `Invalid request: a batch holds at most ${this.#maxBatchLength} calls`, {
        max_batch_length: this.#maxBatchLength,
      }),
    );
  }

  // Elements run concurrently; the reply keeps input order and leaves out notifications.
  async #handleBatch(elements: readonly BatchElement[], call: CallContext, limit: PendingLimit | undefined): Promise<string | undefined> {
    const responses = await Promise.all(
      elements.map((element) => (element.kind === 'refused' ? element.response : this.#handleOne(element.value, call, limit))),
    );
    const parts = responses.filter((r): r is JSONRPCResponse => r !== undefined).map((r) => this.#serializeSafely(r));
    return parts.length === 0 ? undefined : `[${parts.join(',')}]`;
  }

  async #handleOne(element: unknown, call: CallContext, limit: PendingLimit | undefined): Promise<JSONRPCResponse | undefined> {
    const envelope = readEnvelope(element);
    if (envelope.kind === 'invalid') {
      // Always answered, notification or not: the server cannot tell what was meant.
      return errorResponse(envelope.id, protocolError('invalid_request', `Invalid request: ${envelope.message}`));
    }
    const { id, isNotification } = envelope;
    const reply = (response: JSONRPCResponse): JSONRPCResponse | undefined => (isNotification ? undefined : response);
    if (limit === undefined) return this.#dispatch(envelope, call, reply);
    // Entered synchronously, so the elements of one batch are admitted in order.
    if (!limit.tryEnter()) {
      this.#log.debug('call refused: too many in flight', { method: truncateName(envelope.method), max: limit.max });
      return reply(
        errorResponse(
          id,
          protocolError(
            'invalid_request',
            `this connection already has ${limit.max} requests in flight; wait for their replies before sending more ` +
              '(or start the server with a higher --max-pending-per-connection)',
            { limit: 'pending_requests_per_connection', max: limit.max },
          ),
        ),
      );
    }
    try {
      return await this.#dispatch(envelope, call, reply);
    } finally {
      limit.leave();
    }
  }

  async #dispatch(
    envelope: Extract<Envelope, { kind: 'call' }>,
    call: CallContext,
    reply: (response: JSONRPCResponse) => JSONRPCResponse | undefined,
  ): Promise<JSONRPCResponse | undefined> {
    const { id, method: name } = envelope;

    const outcome = await this.call(name, envelope.params, call);
    // `result` is required in a success response; JSON would drop an undefined one.
    return reply(
      outcome.ok
        ? createJSONRPCSuccessResponse(id, outcome.result === undefined ? null : outcome.result)
        : errorResponse(id, outcome.error),
    );
  }

  /** The invalid_params (or method_not_found) error a call with these params would get; undefined when they are valid. */
  check(name: string, params: unknown): JsonRpcErrorObject | undefined {
    const method = this.#methods.get(name);
    if (method === undefined) return protocolError('method_not_found', 'Method not found', { method: truncateName(name) });
    const parsed = validateParams(method.params, params);
    return parsed.ok ? undefined : protocolError('invalid_params', parsed.message, { issues: parsed.issues });
  }

  /**
   * Runs one method as a request would: lookup, params validation, the handler, and the error
   * mapping. Never rejects. The WebSocket envelope above and the MCP tools both come here.
   */
  async call(name: string, params: unknown, call: CallContext): Promise<CallOutcome> {
    // A Map, never an object: `toString` or `__proto__` must not find Object.prototype.
    const method = this.#methods.get(name);
    if (method === undefined) {
      return { ok: false, error: protocolError('method_not_found', 'Method not found', { method: truncateName(name) }) };
    }

    const parsed = validateParams(method.params, params);
    if (!parsed.ok) {
      return { ok: false, error: protocolError('invalid_params', parsed.message, { issues: parsed.issues }) };
    }

    try {
      return { ok: true, result: await method.handler(parsed.value, call) };
    } catch (error) {
      const mapped = toJsonRpcError(error);
      if (isUnexpected(error)) {
        // Method name and principal only: params may hold secrets (typed text, tokens).
        this.#log.error('handler failed', { method: name, principal: call.principal.id, error });
      } else {
        this.#log.debug('call failed', { method: name, error_type: mapped.data.error_type });
      }
      return { ok: false, error: mapped };
    }
  }

  // A handler result that JSON cannot hold (a BigInt, a cycle) is a bug in that handler; it
  // becomes internal_error for that id instead of losing the whole reply.
  #serializeSafely(response: JSONRPCResponse): string {
    try {
      return serialize(response);
    } catch (error) {
      this.#log.error('result is not serialisable', { id: response.id, error });
      return serialize(
        errorResponse(response.id, toJsonRpcError(new Error(`result is not serialisable: ${(error as Error).message}`))),
      );
    }
  }
}

/** The JSON-RPC 2.0 request checks, in the order a client would want them reported. */
function readEnvelope(element: unknown): Envelope {
  if (element === null || typeof element !== 'object' || Array.isArray(element)) {
    return { kind: 'invalid', id: null, message: 'expected a request object' };
  }
  const request = element as Record<string, unknown>;
  const hasId = Object.hasOwn(request, 'id');
  const rawId = request['id'];
  if (hasId && !isValidId(rawId)) {
    return { kind: 'invalid', id: null, message: 'id must be a string, a number or null' };
  }
  const id: JSONRPCID = hasId ? (rawId as JSONRPCID) : null;
  if (request['jsonrpc'] !== '2.0') return { kind: 'invalid', id, message: 'jsonrpc must be "2.0"' };
  if (typeof request['method'] !== 'string') return { kind: 'invalid', id, message: 'method must be a string' };
  const params = request['params'];
  if (params !== undefined && (params === null || typeof params !== 'object')) {
    return { kind: 'invalid', id, message: 'params must be an object or an array' };
  }
  return { kind: 'call', id, isNotification: !hasId, method: request['method'], params };
}

// JSON.parse turns 1e400 into Infinity, which would go back out as null: not the same id.
function isValidId(id: unknown): id is JSONRPCID {
  return id === null || typeof id === 'string' || (typeof id === 'number' && Number.isFinite(id));
}

type ParamsResult = { ok: true; value: unknown } | { ok: false; message: string; issues: ParamIssue[] };

function validateParams(schema: z.ZodType, params: unknown): ParamsResult {
  if (Array.isArray(params)) {
    return {
      ok: false,
      message: 'Invalid params: pass params by name (an object), not by position',
      issues: [{ path: '', message: 'expected an object of named params, got an array' }],
    };
  }
  const result = schema.safeParse(params ?? {});
  if (result.success) return { ok: true, value: result.data };
  const issues = result.error.issues.slice(0, MAX_ISSUES).map((issue) => ({
    path: clip(issue.path.map((part) => String(part)).join('.'), MAX_ISSUE_TEXT),
    message: clip(issue.message, MAX_ISSUE_TEXT),
  }));
  const first = issues[0];
  const where = first === undefined ? '' : first.path ? ` at ${first.path}: ${first.message}` : `: ${first.message}`;
  return { ok: false, message: `Invalid params${where}`, issues };
}

function errorResponse(id: JSONRPCID, error: JsonRpcErrorObject): JSONRPCResponse {
  return createJSONRPCErrorResponse(id, error.code, error.message, error.data);
}

function serialize(response: JSONRPCResponse): string {
  return JSON.stringify(response);
}

// A method name is echoed back in `data.method`; bound it so a megabyte name is not.
function truncateName(name: string): string {
  return clip(name, 200);
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

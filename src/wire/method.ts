// What a method is on the wire: its name, a one-line summary, and the schemas of its params and
// its result. The server's handlers, rpc.discover and the exported client types all start here.
import type { z } from 'zod';

export interface WireMethod<N extends string = string, P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> {
  readonly name: N;
  readonly summary: string;
  /** Validates calls as they arrive (the server rejects anything else with invalid_params). */
  readonly params: P;
  /** What a successful call answers. */
  readonly result: R;
}

export function wireMethod<const N extends string, P extends z.ZodType, R extends z.ZodType>(
  method: WireMethod<N, P, R>,
): WireMethod<N, P, R> {
  return method;
}

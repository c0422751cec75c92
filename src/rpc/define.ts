// A method is data: its wire name, a zod schema for its params (the same schema validates
// calls and feeds rpc.discover) and a handler that receives already-validated params.
import type { z } from 'zod';
import type { CallContext } from './context.ts';

export interface MethodDef<P extends z.ZodType = z.ZodType, R = unknown> {
  readonly name: string;
  readonly summary: string;
  readonly params: P;
  readonly handler: (params: z.infer<P>, call: CallContext) => Promise<R>;
}

export function defineMethod<P extends z.ZodType, R>(def: MethodDef<P, R>): MethodDef<P, R> {
  return def;
}

/** Widened form for method tables (handler param variance makes the generic one awkward). */
export type AnyMethodDef = MethodDef<z.ZodType, unknown>;

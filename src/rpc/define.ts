// A method is data: its wire description (name, summary, params and result schemas, from
// src/wire) and a handler that receives already-validated params. The handler must answer
// with what the result schema describes: another shape does not compile.
import type { z } from 'zod';
import type { WireMethod } from '../wire/method.ts';
import type { CallContext } from './context.ts';

export interface MethodDef<P extends z.ZodType = z.ZodType, R extends z.ZodType = z.ZodType> extends WireMethod<string, P, R> {
  readonly handler: (params: z.infer<P>, call: CallContext) => Promise<z.input<R>>;
}

export function defineMethod<P extends z.ZodType, R extends z.ZodType>(def: MethodDef<P, R>): MethodDef<P, R> {
  return def;
}

/** Widened form for method tables (handler param variance makes the generic one awkward). */
export type AnyMethodDef = MethodDef<z.ZodType, z.ZodType>;

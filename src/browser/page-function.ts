// Serialising in-page functions for Runtime.callFunctionOn.

/**
 * The source of an in-page function for Runtime.callFunctionOn. Transpilers that keep function
 * names (esbuild, under tsx) wrap inner functions in a `__name(fn, "name")` helper that does not
 * exist in the page; a local stand-in makes the source run wherever it was compiled.
 */
export function pageFunction(fn: (...args: never[]) => unknown): string {
  return `function (...args) { const __name = (f) => f; return (${fn.toString()}).apply(this, args); }`;
}

// The one wording of an observation's blocker for a model or a person (MCP's page text, the CLI's):
// its own module, with no schema in it, so that the CLI can use it without loading zod.

/** What the line says of a blocker (an element of an observation's `blockers`). */
export interface BlockerWords {
  role: string;
  name: string;
  ref?: string | undefined;
  dismiss_ref?: string | undefined;
  covers: readonly string[];
}

/**
 * `covered by dialog "Cookies" @40: @3 @4; @42 dismisses it`: what an agent clicks first. Past
 * `maxRefs` covered refs the line only counts the rest.
 */
export function blockerLine(blocker: BlockerWords, maxRefs = Infinity): string {
  const said = blocker.covers.slice(0, maxRefs).join(' ');
  const more = blocker.covers.length > maxRefs ? ` and ${blocker.covers.length - maxRefs} more` : '';
  const ref = blocker.ref ? ` ${blocker.ref}` : '';
  const dismiss = blocker.dismiss_ref ? `; ${blocker.dismiss_ref} dismisses it` : '';
  return `covered by ${blocker.role} ${JSON.stringify(blocker.name)}${ref}: ${said}${more}${dismiss}`;
}

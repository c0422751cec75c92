// The one wording of what stands in the way for a model or a person: an observation's blocker and a
// refused click's hit, as MCP's page text, the CLI and the inspector say them. Its own module, with
// no schema in it, so that the CLI and the inspector can use it without loading zod.

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

/** What a refused click's point hit (an act result's `hit`). */
export interface HitWords {
  role: string;
  name: string;
  tag: string;
  ref?: string | undefined;
  dismiss_ref?: string | undefined;
}

/**
 * `region "Cookie banner" @40; @41 dismisses it`: the hit named as a blocker line names its blocker
 * (its tag where its role says nothing), names clipped past `maxName` characters.
 */
export function hitWords(hit: HitWords, maxName = Infinity): string {
  const what = hit.role && hit.role !== 'generic' && hit.role !== 'none' ? hit.role : `<${hit.tag}>`;
  const clipped = hit.name.length > maxName ? `${hit.name.slice(0, maxName - 1)}…` : hit.name;
  const name = hit.name ? ` ${JSON.stringify(clipped)}` : '';
  const ref = hit.ref ? ` ${hit.ref}` : '';
  const dismiss = hit.dismiss_ref ? `; ${hit.dismiss_ref} dismisses it` : '';
  return `${what}${name}${ref}${dismiss}`;
}

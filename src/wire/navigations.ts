// Its own module, with no schema in it, so that the CLI can ask it without loading zod.

/** The actions that move a tab between documents and touch no node: alone, they need no state_id (PROTOCOL.md §7). */
export const NAVIGATIONS: ReadonlySet<string> = new Set(['navigate', 'back', 'forward', 'reload']);

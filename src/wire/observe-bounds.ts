// Bounds of observe's params that the CLI checks too (PROTOCOL.md §6): no zod here, so that the
// CLI checks its flags without loading the schemas.

/** An observation part holds its identity and some content: the least and most `max_bytes`. */
export const MAX_BYTES_RANGE = { min: 2048, max: 8_388_608 } as const;

/** Words a find takes at most, and the matches it answers at most. */
export const MAX_FIND_WORDS = 16;
export const MAX_FIND_MATCHES = 50;

// The bounds of an observation's byte budget (`max_bytes`, PROTOCOL.md §6): no zod here, so that
// the CLI checks its flag without loading the schemas.

/** An observation part holds its identity and some content: the least and most `max_bytes`. */
export const MAX_BYTES_RANGE = { min: 2048, max: 8_388_608 } as const;

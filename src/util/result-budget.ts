// The bounds of an MCP tool result's byte budget (PROTOCOL.md §14, "A budget for every result"):
// the flag that sets it (config.ts) and the calls that set their own (mcp/budget.ts) share them.

/** Bytes of a tool result, text and structuredContent together: the default, and the bounds. */
export const MCP_MAX_BYTES = { default: 24_576, min: 8_192, max: 8_388_608 } as const;

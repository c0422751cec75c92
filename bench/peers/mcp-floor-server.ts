// The MCP floor's server (mcp-floor.ts starts it as a process of its own): the smallest MCP server
// the official SDK v2 makes, behind the least node:http glue, on 127.0.0.1. Its tools are the ones
// pagewire listed (names, input and output schemas as pagewire's tools/list gave them) and answer
// with the answer pagewire last gave the same tool, handed over untimed on `POST /answer`. Nothing
// of pagewire runs in it: what is left of a call is what any server on the SDK pays for it.
import { Buffer } from 'node:buffer';
import { createServer, type IncomingMessage } from 'node:http';
import process from 'node:process';
import { type CallToolResult, createMcpHandler, McpServer } from '@modelcontextprotocol/server';
import { type JsonSchema, passThrough } from '../../src/mcp/json-schema.ts';

/** A tool as a tools/list answer lists it. */
export interface ListedTool {
  name: string;
  description?: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
}

/** What `POST /answer` takes: the tools to serve (once), and answers by tool name. */
export interface FloorAnswers {
  tools?: ListedTool[];
  answers?: Record<string, CallToolResult>;
}

const tools = new Map<string, ListedTool>();
const answers = new Map<string, CallToolResult>();

const handler = createMcpHandler(() => {
  const server = new McpServer({ name: 'mcp-floor', version: '1.0.0' }, { capabilities: { tools: {} } });
  for (const tool of tools.values()) {
    server.registerTool(tool.name, {
      ...(tool.description !== undefined ? { description: tool.description } : {}),
      inputSchema: passThrough(tool.inputSchema),
      ...(tool.outputSchema !== undefined ? { outputSchema: passThrough(tool.outputSchema) } : {}),
    }, () => answers.get(tool.name) ?? { content: [{ type: 'text', text: 'no answer handed over yet' }], isError: true });
  }
  return server;
}, { legacy: 'reject' });

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const server = createServer(async (req, res) => {
  const body = await bodyOf(req);
  if (req.url === '/answer') {
    const handed = JSON.parse(body) as FloorAnswers;
    for (const tool of handed.tools ?? []) tools.set(tool.name, tool);
    for (const [name, answer] of Object.entries(handed.answers ?? {})) answers.set(name, answer);
    res.writeHead(204).end();
    return;
  }
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
  const request = new Request(`http://localhost${req.url ?? '/'}`, { method: req.method ?? 'POST', headers });
  const response = await handler.fetch(request, body === '' ? {} : { parsedBody: JSON.parse(body) });
  // Written whole (a tools/call with no progress is answered as one JSON message).
  const whole = Buffer.from(await response.arrayBuffer());
  const out: Record<string, string | number> = {};
  response.headers.forEach((value, name) => (out[name] = value));
  res.writeHead(response.status, { ...out, 'content-length': whole.length }).end(whole);
});
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
console.log(`mcp-floor listening on http://127.0.0.1:${(server.address() as { port: number }).port}/`);
process.once('SIGTERM', () => process.exit(0));

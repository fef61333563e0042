// The Model Context Protocol SDK's own client, spawning a real `sluice mcp` over stdio.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

export interface McpSession {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr: () => string;
  /** Calls a tool; `json` is its text parsed (undefined when the text is not JSON, e.g. an error's sentence). */
  call(name: string, args?: Record<string, unknown>): Promise<{ isError: boolean; text: string; json: any }>;
  close(): Promise<void>;
}

/** Starts `command args` (a `sluice mcp …`) and connects to it: the initialize handshake is done when this resolves. */
export async function connectMcp(command: string, args: string[], options: { cwd?: string; env?: Record<string, string> } = {}): Promise<McpSession> {
  const transport = new StdioClientTransport({ command, args, stderr: 'pipe', ...options });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'sluice-tests', version: '1.0.0' });
  await client.connect(transport);
  return {
    client,
    stderr: () => stderr,
    async call(name, args = {}) {
      const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
      const first = result.content[0];
      const text = first?.type === 'text' ? first.text : '';
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        json = undefined;
      }
      return { isError: result.isError === true, text, json };
    },
    close: () => client.close(),
  };
}

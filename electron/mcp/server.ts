// The Model Context Protocol server of `sluice mcp`: the official SDK's McpServer over stdio, its tools
// thin over one relay's HTTP API (relay-api.ts). stdout is the protocol: nothing else may write there.
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import pkg from '../../package.json' with { type: 'json' };
import { registerReadTools } from './read-tools.ts';
import type { RelayApi } from './relay-api.ts';
import { registerWriteTools } from './write-tools.ts';

const INSTRUCTIONS = `Sluice is a local relay for analytics events (Segment's and RudderStack's Tracking API): apps send it track, identify, page, screen, group and alias messages; it stores each one, checks it against tracking plans and delivers it to webhooks. To verify tracking: make the app send (or send_test_event, with --allow-write), wait_for_message with a filter, check violations (each message carries them; explain_violation says the rule and the fix; check_event tries a message before changing code), then get_message to read what each webhook was sent and answered.`;

export interface McpOptions {
  api: RelayApi;
  allowWrite: boolean;
}

/** Serves the tools on stdin/stdout until the client closes its end; resolves then. */
export async function serveMcp({ api, allowWrite }: McpOptions): Promise<void> {
  const server = new McpServer({ name: 'sluice', title: 'Sluice', version: pkg.version }, { instructions: INSTRUCTIONS });
  registerReadTools(server, api);
  if (allowWrite) registerWriteTools(server, api);
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once('end', resolve); // the client went away
  });
  await server.connect(transport);
  api.warm(); // while the client is still starting: the first call does not pay for it
  await closed;
  await server.close();
}

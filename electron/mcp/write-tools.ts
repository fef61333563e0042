// `sluice mcp --allow-write`'s tools: they change what the relay holds or sends — a replay posts to
// webhooks, a test event is stored and delivered as any client's, a reset forgets every message. Only
// registered with the flag, so that an agent given the read tools cannot do any of it.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { SourceView } from '../../shared/channels/sources.ts';
import { RelayError, type RelayApi } from './relay-api.ts';
import { answer } from './tool-result.ts';

const messageIds = z
  .array(z.string().min(1).max(1000))
  .min(1)
  .max(100)
  .describe('The messageIds of stored messages to send again (1 to 100)');

export function registerWriteTools(server: McpServer, api: RelayApi): void {
  server.registerTool(
    'replay',
    {
      title: 'Replay messages to webhooks',
      description:
        'Sends stored messages again as new deliveries (signed, with retries, as the first time; the earlier ones stay recorded): through every enabled webhook destination of each message\'s source, or one destination (by name), or to targetUrl instead of the destination\'s webhooks. Returns {"deliveryIds": [...], "messages", "deliveries", "leftOut": {"rejected", "noDestination"}}; follow them with get_message or list_deliveries. dryRun only counts. Rejected messages cannot be replayed.',
      inputSchema: z.strictObject({
        messageIds,
        destination: z.string().min(1).max(100).optional().describe('A destination\'s name; omit for every enabled destination of the source'),
        targetUrl: z.string().url().max(2048).optional().describe('Post here instead of the destination\'s webhooks, e.g. http://localhost:3000/hook'),
        dryRun: z.boolean().optional().describe('true: only count what would be replayed'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ messageIds, destination, targetUrl, dryRun }, { signal }) => answer(() => api.post('/replay', { messageIds, destination, targetUrl, dryRun }, signal)),
  );

  server.registerTool(
    'send_test_event',
    {
      title: 'Send a test event through the relay',
      description:
        'Sends one message to the relay\'s ingestion endpoint (Segment\'s HTTP Tracking API, POST /v1/<type>) with a source\'s write key, as an app would: it is checked against the tracking plans, stored and delivered to the source\'s webhooks. Returns {"messageId", "source", "ingest", "answer"} (the endpoint\'s answer); then wait_for_message with {"messageId"} and get_message to read its deliveries. A track needs "event"; every message needs userId or anonymousId (an anonymousId is made when neither is given).',
      inputSchema: z.strictObject({
        type: z.enum(['track', 'identify', 'page', 'screen', 'group', 'alias']).default('track'),
        event: z.string().min(1).max(1024).optional().describe('The track event\'s name'),
        name: z.string().max(1024).optional().describe('A page or screen name'),
        userId: z.string().max(1000).optional(),
        anonymousId: z.string().max(1000).optional(),
        groupId: z.string().max(1000).optional().describe('For group'),
        previousId: z.string().max(1000).optional().describe('For alias'),
        properties: z.record(z.string(), z.unknown()).optional(),
        traits: z.record(z.string(), z.unknown()).optional(),
        context: z.record(z.string(), z.unknown()).optional(),
        messageId: z.string().min(1).max(1000).optional().describe('Default: a new "mcp-<uuid>"'),
        source: z.string().min(1).max(100).optional().describe('The source\'s name; omit when the relay has one source'),
      }),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    },
    ({ type, source, ...fields }, { signal }) =>
      answer(async () => {
        if (type === 'track' && fields.event === undefined) throw new RelayError('invalid_request', 'a track needs "event", its name');
        const info = await api.get<{ ingestUrl: string; sources: SourceView[] }>('/info', {}, signal);
        const chosen = pickSource(info.sources, source);
        const message = { ...fields, messageId: fields.messageId ?? `mcp-${randomUUID()}`, ...(fields.userId === undefined && fields.anonymousId === undefined ? { anonymousId: `mcp-${randomUUID()}` } : {}) };
        const url = `${info.ingestUrl}/v1/${type}`;
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json', Authorization: `Basic ${Buffer.from(`${chosen.writeKey}:`).toString('base64')}` },
          body: JSON.stringify(message),
          signal,
        }).catch((error: Error) => {
          throw new RelayError('unreachable', `the ingestion endpoint ${url} did not answer (${(error.cause as Error | undefined)?.message ?? error.message})`);
        });
        const text = await res.text();
        let body: unknown = text;
        try {
          body = JSON.parse(text);
        } catch {
          // not JSON: kept as text
        }
        if (!res.ok) {
          const sentence = (body as { error?: { message?: string } | string; message?: string } | null)?.error;
          throw new RelayError('refused', `the ingestion endpoint refused the message (${res.status}): ${typeof sentence === 'string' ? sentence : (sentence?.message ?? text.slice(0, 500))}`);
        }
        return { messageId: message.messageId, source: chosen.name, ingest: url, answer: body };
      }),
  );

  server.registerTool(
    'reset',
    {
      title: 'Forget every stored message',
      description: 'Deletes every stored message and its deliveries from the relay (as sluice/testing\'s reset between tests), ends injected faults; sources, destinations and plans stay. Returns {"messages": N forgotten}. Cannot be undone.',
      inputSchema: z.strictObject({}),
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (_args, { signal }) => answer(() => api.post('/reset', {}, signal)),
  );
}

function pickSource(sources: SourceView[], name: string | undefined): SourceView {
  const names = sources.map((s) => `"${s.name}"`).join(', ');
  if (name !== undefined) {
    const found = sources.find((s) => s.name === name);
    if (!found) throw new RelayError('not_found', `there is no source "${name}"; the relay's sources are ${names || 'none'}`);
    return found;
  }
  if (sources.length === 1) return sources[0]!;
  throw new RelayError('invalid_request', sources.length === 0 ? 'the relay has no source to send with; add one in its config or the inspector' : `the relay has ${sources.length} sources (${names}): name one as "source"`);
}

/** Ready-to-paste code that points each client at this Sluice (the same as the README's). */
export interface Snippet {
  id: string;
  title: string;
  language: string;
  code: string;
}

export function clientSnippets(ingestUrl: string, writeKey: string): Snippet[] {
  const key = JSON.stringify(writeKey);
  const host = JSON.stringify(ingestUrl);
  return [
    {
      id: 'analytics-node',
      title: '@segment/analytics-node',
      language: 'js',
      code: `import { Analytics } from '@segment/analytics-node';
const analytics = new Analytics({ writeKey: ${key}, host: ${host}, flushAt: 1 });
analytics.track({ userId: 'u_1', event: 'Order Completed', properties: { revenue: 42 } });
await analytics.closeAndFlush();`,
    },
    {
      id: 'analytics-js',
      title: 'analytics.js (@segment/analytics-next)',
      language: 'js',
      code: `import { AnalyticsBrowser } from '@segment/analytics-next';
const analytics = AnalyticsBrowser.load({ writeKey: ${key}, cdnURL: ${host} });
analytics.track('Order Completed', { revenue: 42 });`,
    },
    {
      id: 'sluice-client',
      title: 'Sluice client',
      language: 'js',
      code: `import { Client } from 'sluice/client';
const client = new Client(${key}, { endpoint: ${host} });
client.track({ userId: 'u_1', event: 'Order Completed', properties: { revenue: 42 } });
await client.close();`,
    },
    {
      id: 'curl',
      title: 'curl',
      language: 'sh',
      code: `curl -u ${shellWord(`${writeKey}:`)} -H 'Content-Type: application/json' ${shellWord(`${ingestUrl}/v1/track`)} \\
  -d '{"userId":"u_1","event":"Order Completed","properties":{"revenue":42}}'`,
    },
  ];
}

function shellWord(value: string): string {
  return /^[\w@%+=:,./-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
}

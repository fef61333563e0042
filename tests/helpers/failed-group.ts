// A core with one Issues group of `count` failed deliveries: one destination (crm) whose receiver
// answers 400, and `count` track messages sent to it in batches of 400 — what the bulk retry tests
// (delivery/issues-bulk-retry, api/issues-retry-stop) retry and stop.
import type { CoreOptions } from '../../electron/core/index.ts';
import { post, startCore, type TestCore } from './core.ts';
import { startReceiver, type Receiver } from './receiver.ts';
import { until } from './wait.ts';

export async function coreWithFailedGroup(count: number, options: Partial<CoreOptions> = {}): Promise<{ core: TestCore; hook: Receiver; issueId: number }> {
  const hook = await startReceiver();
  hook.fallback = { status: 400, body: 'no' };
  const core = await startCore({
    config: {
      sources: [{ name: 'web', writeKey: 'wk_web', kind: 'web' }],
      destinations: [{ name: 'crm', enabled: true, sources: ['web'], sharedSecret: 's3cret', webhooks: [{ url: `${hook.url}/crm`, headers: {} }], options: { bodyShape: 'full', concurrency: 16 } }],
    },
    ...options,
  });
  core.writeKey = 'wk_web';
  for (let i = 0; i < count; i += 400) {
    const size = Math.min(400, count - i);
    await post(core, '/v1/batch', { batch: Array.from({ length: size }, (_, j) => ({ type: 'track', userId: 'u', event: 'Order', messageId: `m-${i + j}` })) });
  }
  const group = await until(() => core.issues.list('open', undefined).issues.find((issue) => issue.failed === count), 60_000, `${count} failed deliveries`);
  return { core, hook, issueId: group.id };
}

// Posts N track messages to /v1/batch in batches of 500, from its own process (for benchmarks); their
// messageIds start with the optional 4th argument (default "m"), so that runs on one store do not repeat them.
import { request } from 'undici';

const [url, writeKey, countText, prefix = 'm'] = process.argv.slice(2);
const count = Number(countText);
const auth = `Basic ${Buffer.from(`${writeKey}:`).toString('base64')}`;
for (let i = 0; i < count; i += 500) {
  const batch = Array.from({ length: Math.min(500, count - i) }, (_, j) => {
    const n = i + j;
    return {
      type: 'track',
      userId: `user_${n % 5000}`,
      event: 'Order Completed',
      messageId: `${prefix}-${n}`,
      properties: { orderId: `o_${n}`, revenue: (n % 997) + 0.99, currency: 'USD' },
      timestamp: '2026-11-21T10:00:00.000Z',
    };
  });
  const res = await request(`${url}/v1/batch`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  await res.body.dump();
  if (res.statusCode !== 200) throw new Error(`batch answered ${res.statusCode}`);
}

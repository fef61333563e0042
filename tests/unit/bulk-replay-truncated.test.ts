// The bulk replay dialog's sentence when "replay all failed" found more than one replay takes.
import { expect, it } from 'vitest';
import { confirmation, TRUNCATED_SENTENCE } from '../../renderer/src/views/replay/bulk-plan.ts';

it('says that only the oldest 10,000 are replayed and how to replay the rest', () => {
  const base = { deliveryIds: [], messages: 10_000, deliveries: 10_000, leftOut: { rejected: 0, noDestination: 0 } };
  expect(confirmation({ ...base, truncated: true }, 'failed')).toEqual({
    text: `This replays all 10,000 failed deliveries, whatever the filter. ${TRUNCATED_SENTENCE}`,
    button: 'Replay 10,000 failed deliveries',
  });
  expect(TRUNCATED_SENTENCE).toMatch(/oldest 10,000.*again/);
  expect(confirmation(base).text).not.toContain(TRUNCATED_SENTENCE);
});

// Two tests at the same time in two workers (they meet at the shop's barrier, which holds each until
// both have come): each sends its own event, and each one's relay holds only its own.
import { expect, test } from 'sluice/playwright';

test.describe.configure({ mode: 'parallel' });

const meet = (page, name) => page.evaluate((url) => fetch(url).then((answer) => answer.text()), `${process.env.SHOP_URL}/barrier/${name}?n=2`);

for (const which of ['left', 'right']) {
  test(`worker test ${which}`, async ({ page, sluice }) => {
    await page.goto(`${process.env.SHOP_URL}/segment`);
    expect(await meet(page, 'started')).toBe('met');
    await page.evaluate((side) => window.analytics.track('Worker Event', { side }), which);
    await sluice.waitForMessages({ event: 'Worker Event' }, { timeoutMs: 10_000 });
    // Both have sent before either looks.
    expect(await meet(page, 'sent')).toBe('met');
    const events = (await sluice.messages({ type: 'track' })).map((message) => message.properties.side);
    test.info().annotations.push(
      { type: 'relay', description: sluice.ingestUrl },
      { type: 'worker', description: String(test.info().parallelIndex) },
      { type: 'events', description: JSON.stringify(events) },
    );
    expect(events).toEqual([which]);
  });
}

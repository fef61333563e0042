// Two tests of one worker, one after the other: the second finds the relay the first sent to, reset.
import { expect, test } from 'sluice/playwright';

test.describe.configure({ mode: 'serial' });

test('first: an event is stored', async ({ page, sluice }) => {
  await page.goto(`${process.env.SHOP_URL}/segment`);
  await page.getByRole('button', { name: 'Buy' }).click();
  await sluice.waitForMessages({ event: 'Order Completed' }, { timeoutMs: 10_000 });
  test.info().annotations.push({ type: 'relay', description: sluice.ingestUrl }, { type: 'stored', description: String((await sluice.messages()).length) });
});

test('second: the same relay holds nothing', async ({ sluice }) => {
  const stored = await sluice.messages();
  test.info().annotations.push({ type: 'relay', description: sluice.ingestUrl }, { type: 'stored', description: String(stored.length) });
  expect(stored).toEqual([]);
});

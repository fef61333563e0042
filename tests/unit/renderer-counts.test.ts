// The stream footer's counts (renderer/src/store/inspector/counts.ts) against the race between a
// count and the `messages.stored` events: the counting thread may read a message before its event
// reaches the page, and an answer may come after events it never saw. A CI run showed "2 messages"
// for one stored message: the answer held it, then its event added it again.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createStore } from 'zustand/vanilla';
import type { MessageCounts } from '../../shared/channels/messages.ts';
import type { Channel, RequestOf, Responses, Result } from '../../shared/contract.ts';
import { Counts } from '../../renderer/src/store/inspector/counts.ts';
import { initialState, type InspectorState } from '../../renderer/src/store/inspector/state.ts';
import type { RelayApi } from '../../renderer/src/transport/relay-api.ts';
import { NO_FILTERS } from '../../renderer/src/store/filters.ts';

/** A RelayApi whose `messages.count` answers wait for the test. */
function countingApi() {
  const asked: { resolve: (value: MessageCounts) => void; fail: (code: string) => void }[] = [];
  const api = {
    kind: 'websocket',
    invoke<C extends Channel>(channel: C, _request: RequestOf<C>): Promise<Result<Responses[C]>> {
      if (channel !== 'messages.count') throw new Error(`unexpected ${channel}`);
      return new Promise((resolve) =>
        asked.push({
          resolve: (value) => resolve({ ok: true, value: value as Responses[C] }),
          fail: (code) => resolve({ ok: false, error: { code, message: `${code} happened` } }),
        }),
      );
    },
    onEvents: () => () => {},
    onState: () => () => {},
    close() {},
  } as unknown as RelayApi;
  return { api, asked };
}

function setup(filters = NO_FILTERS) {
  const { api, asked } = countingApi();
  const store = createStore<InspectorState>()(() => ({ ...initialState(), filters }));
  const counts = new Counts(api, store, { requestFrame: () => {}, now: () => 0 });
  const shown = () => store.getState().counts;
  const answer = async (value: MessageCounts) => {
    asked.shift()!.resolve(value);
    await vi.advanceTimersByTimeAsync(0);
  };
  return { counts, asked, shown, answer };
}

describe('the stream counts and the stored events', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('a message the count already read is not added again when its event comes after the answer', async () => {
    const { counts, asked, shown, answer } = setup();
    void counts.refresh(true);
    await answer({ total: 1, matching: 1, newestId: 7 });
    counts.arrived([7]);
    expect(shown()).toEqual({ total: 1, matching: 1 });
    counts.arrived([8, 9]);
    expect(shown()).toEqual({ total: 3, matching: 3 });
    // Without filters, arrivals are counted on the page: no recount is asked for.
    await vi.advanceTimersByTimeAsync(10_000);
    expect(asked).toHaveLength(0);
  });

  it('arrivals whose events came while the count was asked are added above its newest id, not lost or doubled', async () => {
    const { counts, shown, answer } = setup();
    void counts.refresh(true);
    await answer({ total: 5, matching: 5, newestId: 5 });
    void counts.refresh();
    counts.arrived([6]); // read by the count below
    counts.arrived([7, 8]); // stored after the count's read
    expect(shown()).toEqual({ total: 8, matching: 8 });
    await answer({ total: 6, matching: 6, newestId: 6 });
    expect(shown()).toEqual({ total: 8, matching: 8 });
    counts.arrived([8]); // an event seen again (a reconnect) changes nothing
    counts.arrived([9]);
    expect(shown()).toEqual({ total: 9, matching: 9 });
  });

  it('a first count asked with no counts shown yet adds what arrived meanwhile', async () => {
    const { counts, shown, answer } = setup();
    void counts.refresh(true);
    counts.arrived([1]);
    expect(shown()).toBeNull();
    await answer({ total: 0, matching: 0, newestId: 0 });
    expect(shown()).toEqual({ total: 1, matching: 1 });
  });

  it('under filters, arrivals above the answer grow the total and ask the core to recount the matches', async () => {
    const { counts, asked, shown, answer } = setup({ ...NO_FILTERS, search: 'type:track' });
    void counts.refresh(true);
    counts.arrived([3, 4]);
    await answer({ total: 3, matching: 1, newestId: 3 });
    expect(shown()).toEqual({ total: 4, matching: 1 });
    expect(asked).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1_500);
    expect(asked).toHaveLength(1);
    await answer({ total: 4, matching: 2, newestId: 4 });
    expect(shown()).toEqual({ total: 4, matching: 2 });
  });

  it('after messages were removed, ids given again count, and an answer asked before the removal is dropped', async () => {
    const { counts, asked, shown, answer } = setup();
    void counts.refresh(true);
    await answer({ total: 10, matching: 10, newestId: 10 });
    void counts.refresh();
    counts.removed(); // a clear: every message went, and the next id is 1 again
    await answer({ total: 10, matching: 10, newestId: 10 }); // read before the clear: dropped
    expect(shown()).toEqual({ total: 10, matching: 10 });
    counts.arrived([1]);
    expect(shown()).toEqual({ total: 11, matching: 11 });
    await vi.advanceTimersByTimeAsync(1_500);
    expect(asked).toHaveLength(1);
    await answer({ total: 1, matching: 1, newestId: 1 });
    expect(shown()).toEqual({ total: 1, matching: 1 });
    counts.arrived([1]);
    counts.arrived([2]);
    expect(shown()).toEqual({ total: 2, matching: 2 });
  });
});

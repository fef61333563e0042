// Settings' pure parts, in Node: the theme choice (stored, applied as data-theme, "system" forgets it)
// and the held-deliveries store (delivery.state, delivery.hold, live `delivery.held` from any window,
// "N waiting" refreshed at most once per interval while held, read again after a reconnect).
import { describe, expect, it } from 'vitest';
import type { Channel, CoreEvent, DeliveryHoldState, RequestOf, Responses, Result } from '../../shared/contract.ts';
import { createInspector } from '../../renderer/src/store/inspector.ts';
import type { ConnectionState, EventsListener, RelayApi } from '../../renderer/src/transport/relay-api.ts';
import { createHoldController, WAITING_REFRESH_MS } from '../../renderer/src/views/settings/delivery-hold.ts';
import { applyTheme, chooseTheme, readTheme, startTheme, THEME_KEY, type ThemeHost } from '../../renderer/src/views/settings/theme.ts';

function fakeThemeHost(initial: Record<string, string> = {}) {
  const items = new Map(Object.entries(initial));
  const attributes = new Map<string, string>();
  const host: ThemeHost = {
    storage: {
      getItem: (key) => items.get(key) ?? null,
      setItem: (key, value) => void items.set(key, value),
      removeItem: (key) => void items.delete(key),
    },
    root: {
      setAttribute: (name, value) => void attributes.set(name, value),
      removeAttribute: (name) => void attributes.delete(name),
    },
  };
  return { host, items, attributes };
}

describe('theme', () => {
  it('reads the stored choice, treating anything unknown or unreadable as the system theme', () => {
    expect(readTheme(fakeThemeHost().host)).toBe('system');
    expect(readTheme(fakeThemeHost({ [THEME_KEY]: 'dark' }).host)).toBe('dark');
    expect(readTheme(fakeThemeHost({ [THEME_KEY]: 'purple' }).host)).toBe('system');
    const locked = { storage: { getItem: () => { throw new Error('SecurityError'); } } };
    expect(readTheme(locked as unknown as ThemeHost)).toBe('system');
  });

  it('applies an explicit choice as data-theme and remembers it; system removes both', () => {
    const { host, items, attributes } = fakeThemeHost();
    chooseTheme(host, 'dark');
    expect(attributes.get('data-theme')).toBe('dark');
    expect(items.get(THEME_KEY)).toBe('dark');
    chooseTheme(host, 'light');
    expect(attributes.get('data-theme')).toBe('light');
    expect(readTheme(host)).toBe('light');
    chooseTheme(host, 'system');
    expect(attributes.has('data-theme')).toBe(false);
    expect(items.has(THEME_KEY)).toBe(false);
    applyTheme(host, 'dark');
    expect(items.has(THEME_KEY)).toBe(false); // applying alone does not remember
  });

  it('applies the stored choice on start and follows another window’s change', () => {
    const { host, items, attributes } = fakeThemeHost({ [THEME_KEY]: 'dark' });
    let onStorage: ((event: { key: string | null }) => void) | undefined;
    startTheme(host, { addEventListener: ((_type: string, listener: (event: { key: string | null }) => void) => (onStorage = listener)) as never });
    expect(attributes.get('data-theme')).toBe('dark');
    items.set(THEME_KEY, 'light');
    onStorage!({ key: 'sluice.listWidth' });
    expect(attributes.get('data-theme')).toBe('dark'); // another key: nothing to do
    onStorage!({ key: THEME_KEY });
    expect(attributes.get('data-theme')).toBe('light');
    items.delete(THEME_KEY);
    onStorage!({ key: null }); // storage cleared
    expect(attributes.has('data-theme')).toBe(false);
  });
});

/** A transport whose core holds `state`; records calls; the test emits events and connection changes. */
function fakeCore(state: DeliveryHoldState = { held: false, waiting: 0 }) {
  const listeners = new Set<EventsListener>();
  const connection = new Set<(s: ConnectionState) => void>();
  const calls: { channel: Channel; request: unknown }[] = [];
  let failHold: string | null = null;
  const api: RelayApi = {
    kind: 'websocket',
    invoke<C extends Channel>(channel: C, request: RequestOf<C>): Promise<Result<Responses[C]>> {
      calls.push({ channel, request });
      const answer = (value: unknown) => Promise.resolve({ ok: true, value } as Result<Responses[C]>);
      switch (channel) {
        case 'delivery.state':
          return answer({ ...state });
        case 'delivery.hold':
          if (failHold) return Promise.resolve({ ok: false, error: { code: 'disconnected', message: failHold } });
          state.held = (request as { held: boolean }).held;
          return answer({ ...state });
        case 'messages.list':
          return answer({ messages: [], next: null });
        case 'destinations.list':
          return answer({ destinations: [] });
        case 'messages.count':
          return answer({ total: 0, matching: 0, newestId: 0 });
        default:
          return answer({ version: '0', ingestUrl: 'http://127.0.0.1:1', receiverUrl: 'http://127.0.0.1:2', dataDir: '/d', sources: [] });
      }
    },
    onEvents(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onState(listener) {
      connection.add(listener);
      listener({ kind: 'open' });
      return () => connection.delete(listener);
    },
    close() {},
  };
  const inspector = createInspector(api, { requestFrame: () => {}, now: () => 0 });
  inspector.start();
  return {
    inspector,
    state,
    calls,
    stateReads: () => calls.filter((c) => c.channel === 'delivery.state').length,
    emit: (events: CoreEvent[]) => listeners.forEach((l) => l(events)),
    setConnection: (s: ConnectionState) => connection.forEach((l) => l(s)),
    failHoldWith: (message: string | null) => (failHold = message),
  };
}

function manualTimers() {
  const due: (() => void)[] = [];
  const delays: number[] = [];
  return {
    timers: {
      set: (callback: () => void, ms: number) => {
        due.push(callback);
        delays.push(ms);
        return due.length;
      },
      clear: () => {},
    },
    pending: () => due.length,
    delays,
    fire: () => due.splice(0).forEach((f) => f()),
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('held deliveries store', () => {
  it('reads the core’s state, holds and resumes through delivery.hold', async () => {
    const core = fakeCore({ held: false, waiting: 3 });
    const hold = createHoldController(core.inspector, manualTimers().timers);
    expect(hold.store.getState().held).toBeNull(); // unknown until the core answers
    await settle();
    expect(hold.store.getState()).toMatchObject({ held: false, waiting: 3, busy: false, error: null });
    const holding = hold.setHeld(true);
    expect(hold.store.getState().busy).toBe(true);
    await holding;
    expect(core.calls.filter((c) => c.channel === 'delivery.hold').map((c) => c.request)).toEqual([{ held: true }]);
    expect(hold.store.getState()).toMatchObject({ held: true, waiting: 3, busy: false });
    await hold.setHeld(false);
    expect(hold.store.getState().held).toBe(false);
    hold.dispose();
  });

  it('follows delivery.held from another window, and keeps "N waiting" fresh while held without a read per event', async () => {
    const core = fakeCore({ held: false, waiting: 0 });
    const clock = manualTimers();
    const hold = createHoldController(core.inspector, clock.timers);
    await settle();
    const reads = core.stateReads();

    // Not held: arriving messages cost nothing.
    core.emit([{ type: 'messages.stored', ids: [1, 2] }]);
    expect(clock.pending()).toBe(0);

    // Another window holds: this one shows it at once, then reads the count.
    core.state.held = true;
    core.state.waiting = 2;
    core.emit([{ type: 'delivery.held', held: true }]);
    expect(hold.store.getState().held).toBe(true);
    await settle();
    expect(hold.store.getState().waiting).toBe(2);

    // A burst of stored messages and changes: one read, after the interval.
    core.state.waiting = 7;
    core.emit([{ type: 'messages.stored', ids: [3] }]);
    core.emit([{ type: 'messages.stored', ids: [4] }, { type: 'deliveries.changed', changes: [] }]);
    expect(clock.pending()).toBe(1);
    expect(clock.delays).toEqual([WAITING_REFRESH_MS]);
    const before = core.stateReads();
    clock.fire();
    await settle();
    expect(core.stateReads()).toBe(before + 1);
    expect(hold.store.getState().waiting).toBe(7);
    expect(core.stateReads()).toBeGreaterThan(reads);

    // Released elsewhere: the banner's state goes with it.
    core.state.held = false;
    core.emit([{ type: 'delivery.held', held: false }]);
    expect(hold.store.getState().held).toBe(false);
    hold.dispose();
  });

  it('reads the state again after a reconnect (the core may have restarted, which resumes)', async () => {
    const core = fakeCore({ held: true, waiting: 4 });
    const hold = createHoldController(core.inspector, manualTimers().timers);
    await settle();
    expect(hold.store.getState().held).toBe(true);
    core.setConnection({ kind: 'reconnecting', retryAt: 0, attempt: 1, reason: 'closed' });
    core.state.held = false;
    core.state.waiting = 0;
    core.setConnection({ kind: 'open' });
    await settle();
    expect(hold.store.getState()).toMatchObject({ held: false, waiting: 0 });
    hold.dispose();
  });

  it('says so in a sentence when the core cannot be told, and keeps the last known state', async () => {
    const core = fakeCore({ held: true, waiting: 1 });
    const hold = createHoldController(core.inspector, manualTimers().timers);
    await settle();
    core.failHoldWith('the connection to Sluice is closed');
    await hold.setHeld(false);
    expect(hold.store.getState()).toMatchObject({
      held: true,
      busy: false,
      error: 'Could not resume deliveries: the connection to Sluice is closed',
    });
    hold.dispose();
  });
});

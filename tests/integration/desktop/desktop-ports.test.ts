// The desktop app starts on the default ports, and on free ones when a default is taken; a port the
// user asked for (--ingest-port) is never moved.
import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createDesktopCore } from '../../../electron/main/core-ports.ts';
import type { Core } from '../../../electron/core/index.ts';
import { tempDir } from '../../helpers/core.ts';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

function occupy(): Promise<{ port: number; close: () => Promise<void> }> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ port, close: () => new Promise((done) => server.close(() => done())) });
    });
  });
}

describe('the desktop app’s ports', () => {
  it('uses the ports asked for when they are free', async () => {
    const free = await occupy();
    await free.close(); // a port that was just free
    const { core, movedBecause } = await createDesktopCore({ dataDir: tempDir(), ingestPort: free.port, receiverPort: 0 });
    cleanup.push(() => core.close());
    expect(movedBecause).toBeNull();
    expect(core.ingestUrl).toBe(`http://127.0.0.1:${free.port}`);
  });

  it('starts on free ports, saying why, when the ingestion port is taken', async () => {
    const taken = await occupy();
    cleanup.push(taken.close);
    const { core, movedBecause } = await createDesktopCore({ dataDir: tempDir(), ingestPort: taken.port, receiverPort: 0 });
    cleanup.push(() => core.close());
    expect(movedBecause).toContain(`port ${taken.port} is in use`);
    expect(core.ingestUrl).not.toBe(`http://127.0.0.1:${taken.port}`);
    expect(core.ingestUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('does not move a port the user asked for: taken, it is an error that names it', async () => {
    const taken = await occupy();
    cleanup.push(taken.close);
    await expect(createDesktopCore({ dataDir: tempDir(), ingestPort: taken.port, receiverPort: 0 }, { ingest: true, receiver: false })).rejects.toThrow(
      `port ${taken.port} is in use`,
    );
  });

  it('still moves a default port that is taken when the other one was asked for', async () => {
    const taken = await occupy(); // standing in for the receiver's default port, taken
    cleanup.push(taken.close);
    const free = await occupy();
    await free.close();
    const { core, movedBecause } = await createDesktopCore(
      { dataDir: tempDir(), ingestPort: free.port, receiverPort: taken.port },
      { ingest: true, receiver: false },
    );
    cleanup.push(() => core.close());
    expect(movedBecause).toContain(`port ${taken.port}`);
    expect(core.ingestUrl).toBe(`http://127.0.0.1:${free.port}`); // asked for: kept
    expect(core.receiver.url).not.toBe(`http://127.0.0.1:${taken.port}`);
  });

  it('moves only the default port that is taken: a free ingestion port stays where the user\'s client points', async () => {
    const taken = await occupy(); // the receiver's default port, taken
    cleanup.push(taken.close);
    const free = await occupy();
    await free.close();
    const { core, movedBecause } = await createDesktopCore({ dataDir: tempDir(), ingestPort: free.port, receiverPort: taken.port });
    cleanup.push(() => core.close());
    expect(movedBecause).toContain(`port ${taken.port}`);
    expect(core.ingestUrl).toBe(`http://127.0.0.1:${free.port}`);
    expect(core.receiver.url).not.toBe(`http://127.0.0.1:${taken.port}`);
  });

  it('moves both when both defaults are taken', async () => {
    const ingest = await occupy();
    const receiver = await occupy();
    cleanup.push(ingest.close, receiver.close);
    const { core, movedBecause } = await createDesktopCore({ dataDir: tempDir(), ingestPort: ingest.port, receiverPort: receiver.port });
    cleanup.push(() => core.close());
    expect(movedBecause).toContain(`port ${ingest.port}`);
    expect(movedBecause).toContain(`port ${receiver.port}`);
    expect(core.ingestUrl).not.toBe(`http://127.0.0.1:${ingest.port}`);
    expect(core.receiver.url).not.toBe(`http://127.0.0.1:${receiver.port}`);
  });

  it('does not hide other failures', async () => {
    let calls = 0;
    const create = async (): Promise<Core> => {
      calls++;
      throw new Error('the data folder is not writable');
    };
    await expect(createDesktopCore({ dataDir: tempDir() }, undefined, create)).rejects.toThrow('not writable');
    expect(calls).toBe(1);
  });
});

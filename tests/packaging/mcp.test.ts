// `sluice mcp` from the installed tarball: the Model Context Protocol SDK bundled into the package
// (no dependency installed), its server answering the SDK's own client over stdio, with the ephemeral
// relay it starts (the installed `sluice serve`, a child process) behind its tools.
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectMcp } from '../helpers/mcp-client.ts';
import { installInto, packSluice, tempDir } from '../helpers/packed-sluice.ts';

const work = tempDir('sluice-packaging-mcp-');
const project = path.join(work, 'consumer');
const bin = path.join(project, 'node_modules', '.bin', 'sluice');

beforeAll(() => {
  const packed = packSluice(work);
  installInto(project, packed.tarball);
}, 300_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

describe('sluice mcp from the installed package', () => {
  it('lists its tools over stdio with --ephemeral, and a tool answers from the relay it started', async () => {
    expect(fs.existsSync(path.join(project, 'node_modules/@modelcontextprotocol'))).toBe(false); // bundled, not installed
    const session = await connectMcp(bin, ['mcp', '--ephemeral', '--ingest-port', '0', '--ui-port', '0', '--receiver-port', '0'], { cwd: project });
    try {
      const tools = (await session.client.listTools()).tools.map((t) => t.name).sort();
      expect(tools).toEqual(['check_event', 'explain_violation', 'get_message', 'list_deliveries', 'search_messages', 'stats', 'wait_for_message']);
      const stats = await session.call('stats');
      expect(stats.isError).toBe(false);
      expect(stats.json.messages).toEqual({ accepted: 0, rejected: 0, duplicate: 0 });
      expect(session.stderr()).toMatch(/started an ephemeral relay/);
    } finally {
      await session.close();
    }
  }, 60_000);
});

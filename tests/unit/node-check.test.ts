// The relay's Node.js check (electron/host/node-check.js): its verdict on versions around the floor. What a
// user sees on a real Node 20 is checked by tests/packaging with the machine's own Node 20.
import { describe, expect, it } from 'vitest';
import { NEEDS, RELAY_NODE, relayNodeProblem } from '../../electron/host/node-check.js';

describe('relayNodeProblem', () => {
  it('accepts the floor and anything newer', () => {
    expect(RELAY_NODE).toBe('22.19.0');
    for (const version of ['22.19.0', '22.19.1', '22.20.0', '23.0.0', '24.11.1', '25.2.0', '100.0.0', process.versions.node]) {
      expect(relayNodeProblem(version), version).toBeUndefined();
    }
  });

  it('refuses anything older in one sentence naming the version found, the one needed and how to get it', () => {
    for (const version of ['22.18.9', '22.13.0', '22.9.0', '20.20.2', '18.20.8', '16.0.0', '8.17.0']) {
      const problem = relayNodeProblem(version);
      expect(problem, version).toContain(`this is Node.js ${version}`);
      expect(problem).toContain('needs Node.js 22.19.0 or newer');
      expect(problem).toContain('nvm install 24');
      expect(problem).not.toMatch(/\n|\.\s+[A-Z]/); // one sentence, one line
    }
  });

  it('names what needs the newer Node.js: the relay, the command that was run, or sluice/testing', () => {
    expect(relayNodeProblem('20.20.2')).toMatch(/^the relay needs Node\.js 22\.19\.0 or newer \(it stores messages with node:sqlite\), but this is Node\.js 20\.20\.2: /);
    expect(relayNodeProblem('20.20.2', 'command')).toMatch(/^this command needs Node\.js 22\.19\.0 or newer \(it runs the relay's code\), but /);
    expect(relayNodeProblem('20.20.2', 'testing')).toMatch(/^sluice\/testing needs Node\.js 22\.19\.0 or newer \(it runs a relay, which stores messages with node:sqlite\), but /);
    for (const needs of Object.keys(NEEDS) as (keyof typeof NEEDS)[]) expect(relayNodeProblem(RELAY_NODE, needs)).toBeUndefined();
  });
});

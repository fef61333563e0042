// sluice/testing, sluice/playwright and the commands that run without a relay, as a user installs them
// (the packed tarball, installed into an empty project): on Node 20 each refuses in the relay's one
// sentence, naming what needs the newer Node.js (not "the relay" for `sluice export`, not a TypeError
// about DatabaseSync for sluice/testing, not sluice/testing for sluice/playwright; sluice/matchers runs
// no relay and loads); and every error sluice/testing throws at a test carries the test's
// stack, so that a real Vitest run shows the test's own line in its code frame, not dist/chunks/.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkoutRoot, findNode20, installInto, packSluice, tempDir } from '../helpers/packed-sluice.ts';

const work = tempDir('sluice-packaging-testing-');
const project = path.join(work, 'consumer');
const cli = path.join(project, 'node_modules', 'sluice', 'dist', 'cli.js');
const node20 = findNode20();
if ('reason' in node20) console.warn(`[packaging] Node 20 checks skipped: ${node20.reason}`);

beforeAll(() => {
  installInto(project, packSluice(work).tarball);
}, 300_000);

afterAll(() => fs.rmSync(work, { recursive: true, force: true }));

const REFUSAL = String.raw`needs Node\.js 22\.19\.0 or newer \(([^)]*)\), but this is Node\.js 20\.\d+\.\d+: install Node\.js 24 LTS`;

describe.skipIf('reason' in node20)('on Node 20', () => {
  const { binary: node, version } = 'binary' in node20 ? node20 : { binary: '', version: '' };

  it('each command that runs without a relay refuses in one sentence that says "this command", not "the relay"', () => {
    for (const args of [['export'], ['check', '--plan', 'plan.json', 'messages.ndjson'], ['plan', 'infer'], ['plan', 'import', 'plan.json'], ['import', 'messages.ndjson'], ['doctor']]) {
      const run = spawnSync(node, [cli, ...args], { cwd: project, encoding: 'utf8', timeout: 30_000 });
      expect({ args, status: run.status, stdout: run.stdout }).toEqual({ args, status: 1, stdout: '' });
      expect(run.stderr.trimEnd().split('\n')).toEqual([expect.stringMatching(new RegExp(`^sluice: this command ${REFUSAL}`))]);
      expect(run.stderr).toContain("(it runs the relay's code)");
    }
    // serve is the relay.
    const serve = spawnSync(node, [cli, 'serve'], { cwd: project, encoding: 'utf8', timeout: 30_000 });
    expect(serve.stderr).toMatch(new RegExp(`^sluice: the relay ${REFUSAL}`));
  });

  it('sluice/testing refuses at its import with the same sentence, naming sluice/testing — import and require', () => {
    const sentence = new RegExp(`^sluice/testing ${REFUSAL}.*\\.$`);
    const imported = spawnSync(node, ['--input-type=module', '-e', "import('sluice/testing').then(() => console.log('loaded'), (e) => console.log(JSON.stringify(e.message)))"], {
      cwd: project,
      encoding: 'utf8',
    });
    expect(imported.stderr).toBe('');
    expect(JSON.parse(imported.stdout)).toMatch(sentence);
    // Uncaught, as a test file's import would leave it: the sentence, and nothing of node:sqlite.
    fs.writeFileSync(path.join(project, 'uses-testing.mjs'), "import { startSluice } from 'sluice/testing';\nawait startSluice();\n");
    const uncaught = spawnSync(node, ['uses-testing.mjs'], { cwd: project, encoding: 'utf8' });
    expect(uncaught.status).toBe(1);
    expect(uncaught.stderr).toMatch(/Error: sluice\/testing needs Node\.js 22\.19\.0 or newer/);
    expect(uncaught.stderr).not.toMatch(/DatabaseSync|sqlite['"]/);
    // require() of the ES module: Node 20.19 and later allow it.
    const [major, minor] = version.split('.').map(Number) as [number, number];
    if (major === 20 && minor >= 19) {
      const required = spawnSync(node, ['-e', "try { require('sluice/testing') } catch (e) { console.log(JSON.stringify(e.message)) }"], { cwd: project, encoding: 'utf8' });
      expect(JSON.parse(required.stdout)).toMatch(sentence);
    }
  });

  it('sluice/playwright refuses at its import naming sluice/playwright, not sluice/testing; sluice/matchers (no relay) loads and runs', () => {
    // The project's own Playwright Test, as `npm i -D @playwright/test` puts it (linked from this checkout's).
    const link = path.join(project, 'node_modules', '@playwright', 'test');
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.symlinkSync(path.join(checkoutRoot, 'node_modules', '@playwright', 'test'), link, 'dir');
    const load = (specifier: string, then: string) =>
      spawnSync(node, ['--input-type=module', '-e', `import(${JSON.stringify(specifier)}).then((m) => ${then}, (e) => console.log(JSON.stringify('threw: ' + e.message)))`], { cwd: project, encoding: 'utf8' });
    const playwright = load('sluice/playwright', "console.log(JSON.stringify('loaded'))");
    expect(playwright.stderr).toBe('');
    expect(JSON.parse(playwright.stdout)).toMatch(new RegExp(`^threw: sluice/playwright ${REFUSAL}.*\\.$`));
    // Uncaught, as a spec file's import leaves it: that sentence, and nothing of node:sqlite.
    fs.writeFileSync(path.join(project, 'uses-playwright.mjs'), "import { test } from 'sluice/playwright';\ntest('t', () => {});\n");
    const uncaught = spawnSync(node, ['uses-playwright.mjs'], { cwd: project, encoding: 'utf8' });
    expect(uncaught.status).toBe(1);
    expect(uncaught.stderr).toMatch(/Error: sluice\/playwright needs Node\.js 22\.19\.0 or newer \(its fixture runs a relay/);
    expect(uncaught.stderr).not.toMatch(/sluice\/testing needs|DatabaseSync|sqlite['"]/);
    // sluice/matchers imports no store code: it loads on Node 20, and a matcher runs (given no Sluice, it says what to pass).
    const matchers = load('sluice/matchers', "m.sluiceMatchers.toHaveReceived.call({}, 42).then(() => console.log('\"passed\"'), (e) => console.log(JSON.stringify(e.name + ': ' + e.message)))");
    expect(matchers.stderr).toBe('');
    expect(JSON.parse(matchers.stdout)).toMatch(/^SluiceMatcherError: expect\(received\)\.toHaveReceived\(\): received is a number, not a Sluice/);
  });
});

describe('errors sluice/testing throws at a test', () => {
  it('carry the test\'s stack: a real Vitest run shows each failing call\'s line in the test file, not dist/chunks/', () => {
    const calls = {
      'a message that never comes': "await sluice.waitForMessages({ event: 'Never Sent' }, { timeoutMs: 50 });",
      'a delivery that never comes': "await sluice.waitForDeliveries({ event: 'Never Sent' }, { timeoutMs: 50 });",
      'a misspelt filter': "await sluice.messages({ evnt: 'Order Completed' });",
      'a config that does not parse': "await startSluice({ config: { sources: [{ name: '' }] } });",
      'a wait with a bad timeout': "await sluice.waitForMessages({ event: 'Any' }, { timeoutMs: -1 });",
    };
    const file = [
      "import { startSluice } from 'sluice/testing';",
      '',
      'let sluice;',
      'beforeAll(async () => { sluice = await startSluice(); });',
      'afterAll(() => sluice.close());',
      ...Object.entries(calls).flatMap(([name, call]) => ['', `test(${JSON.stringify(name)}, async () => {`, `  ${call}`, '});']),
      '',
    ];
    fs.writeFileSync(path.join(project, 'errors.test.mjs'), file.join('\n'));
    const vitest = path.join(checkoutRoot, 'node_modules', 'vitest', 'vitest.mjs');
    const run = spawnSync(process.execPath, [vitest, 'run', 'errors.test.mjs', '--globals', '--root', project], {
      cwd: project,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', CI: '1' },
      encoding: 'utf8',
      timeout: 120_000,
    });
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(1);
    for (const [name, call] of Object.entries(calls)) {
      const line = file.indexOf(`  ${call}`) + 1;
      const section = output.split(` FAIL  errors.test.mjs > ${name}\n`)[1]?.split('⎯⎯⎯')[0];
      expect(section, `${name}:\n${output}`).toBeDefined();
      // The first place Vitest names is the call in the test file, and it shows that line.
      expect(/❯ (\S+)/.exec(section!)?.[1], section).toMatch(new RegExp(`^errors\\.test\\.mjs:${line}:\\d+$`));
      expect(section).toContain(`${line}|   ${call.slice(0, 40)}`);
      expect(section).not.toContain('dist/chunks');
    }
  });
});

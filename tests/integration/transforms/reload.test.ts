// A transform file loaded, watched and reloaded (electron/core/transforms/transform-registry.ts): a real
// file in a temp folder, changed as an editor saves it.
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createTransformer, type LoadedTransform, type Transformer } from '../../../electron/core/transforms/index.ts';
import { versionOf } from '../../../electron/core/transforms/source-check.ts';
import { tempDir } from '../../helpers/core.ts';
import { until } from '../../helpers/wait.ts';

const V1 = 'async function onTrack(event) {\n  return { ...event, version: 1 };\n}\n';
const V2 = 'async function onTrack(event) {\n  return { ...event, version: 2 };\n}\nfunction onIdentify(e) { return e }\n';
const BROKEN = 'async function onTrack(event) {\n  return { ...event, version: 3 ;\n}\n';
const call = { event: { type: 'track', event: 'x' }, settings: {} };

let transformer: Transformer | undefined;
afterEach(async () => {
  await transformer?.close();
  transformer = undefined;
});

/** Writes as an editor saves: a new file renamed over the old one. */
function save(file: string, text: string): void {
  fs.writeFileSync(`${file}.tmp`, text);
  fs.renameSync(`${file}.tmp`, file);
}

describe('hot reload', () => {
  it('a saved change reloads; a syntax error keeps the previous version and says where; fixing it loads the fix', async () => {
    const dir = tempDir('sluice-transform-');
    const file = path.join(dir, 'amp.js');
    fs.writeFileSync(file, V1);
    const heard: LoadedTransform[] = [];
    transformer = createTransformer({ onChange: (loaded) => heard.push(loaded) });
    expect(transformer.loaded(file)).toEqual({ file, version: versionOf(V1), handlers: ['onTrack'], error: null });
    expect(await transformer.run(file, [call])).toMatchObject([{ events: [{ version: 1 }], version: versionOf(V1) }]);

    save(file, V2);
    await until(() => heard.length === 1, 10_000, 'the reload');
    expect(heard[0]).toEqual({ file, version: versionOf(V2), handlers: ['onTrack', 'onIdentify'], error: null });
    expect(await transformer.run(file, [call])).toMatchObject([{ events: [{ version: 2 }], version: versionOf(V2) }]);

    save(file, BROKEN);
    await until(() => heard.length === 2, 10_000, 'the refused reload');
    const refused = `SyntaxError: Unexpected token ';' (${file}, line 2, column ${BROKEN.split('\n')[1]!.indexOf(';') + 1}); the version loaded before (${versionOf(V2)}) stays in use until it is fixed`;
    expect(heard[1]).toEqual({ file, version: versionOf(V2), handlers: ['onTrack', 'onIdentify'], error: refused });
    expect(transformer.loaded(file).error).toBe(refused);
    expect(await transformer.run(file, [call])).toMatchObject([{ events: [{ version: 2 }], version: versionOf(V2) }]);

    save(file, V1);
    await until(() => heard.length === 3, 10_000, 'the fix');
    expect(heard[2]).toEqual({ file, version: versionOf(V1), handlers: ['onTrack'], error: null });
    expect(await transformer.run(file, [call])).toMatchObject([{ events: [{ version: 1 }] }]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('a file that never loaded: every call fails `load`, naming the file and the problem; it loads once written', async () => {
    const dir = tempDir('sluice-transform-');
    const file = path.join(dir, 'later.js');
    const heard: LoadedTransform[] = [];
    transformer = createTransformer({ onChange: (loaded) => heard.push(loaded) });
    const missing = `${file} does not exist; create it, or fix the transform's path`;
    expect(transformer.loaded(file)).toEqual({ file, version: '', handlers: [], error: missing });
    expect(await transformer.run(file, [call, call])).toEqual([
      { kind: 'failed', code: 'load', message: `the transform ${file} could not be loaded: ${missing}`, version: '', ms: 0, logs: [] },
      { kind: 'failed', code: 'load', message: `the transform ${file} could not be loaded: ${missing}`, version: '', ms: 0, logs: [] },
    ]);

    save(file, BROKEN);
    await until(() => heard.length === 1, 10_000, 'the failed load');
    const broken = `SyntaxError: Unexpected token ';' (${file}, line 2, column ${BROKEN.split('\n')[1]!.indexOf(';') + 1}); fix it: no version of this transform has loaded yet`;
    expect(heard[0]).toEqual({ file, version: '', handlers: [], error: broken });
    expect(await transformer.run(file, [call])).toMatchObject([{ kind: 'failed', code: 'load', message: `the transform ${file} could not be loaded: ${broken}` }]);

    save(file, V1);
    await until(() => heard.length === 2, 10_000, 'the load');
    expect(await transformer.run(file, [call])).toMatchObject([{ kind: 'events', events: [{ version: 1 }] }]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

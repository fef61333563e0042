/**
 * `sluice transform test FILE --fixtures DIR [--settings JSON|FILE] [--timeout MS] [--update]`: runs a
 * transform on fixtures, as CI runs it, with the runtime a relay runs (electron/core/transforms/): each
 * NAME.input.json (one event) through FILE, its outcome held to NAME.expected.json —
 *   an object    the one event sent;
 *   an array     the events of a fan-out;
 *   null         dropped (returned null or an empty array, or threw DropEvent);
 *   {"$dropped": "text"}, {"$retry": "text"}, {"$error": "text"}: dropped, retried (RetryError), failed
 *                (any other throw, a timeout, a non-JSON return) with a reason or message containing text.
 * One line per fixture (pass / FAIL), under a failure each difference as "field: wanted X, got Y"
 * (shared/field-differences.ts) and the call's log lines. --update writes each NAME.expected.json from
 * what the transform does now.
 *
 * Exit code: 0 every fixture passed (or --update wrote them); 1 a fixture did not; 2 the test could not
 * run (usage, the transform does not load, no fixtures, a fixture that is not JSON: a sentence naming it).
 */
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { plural } from '../../shared/counted.ts';
import { TRANSFORM_TIMEOUT } from '../../shared/destination-filters.ts';
import { fieldDifferences, sameJson, showValue } from '../../shared/field-differences.ts';
import { createTransformer, type TransformOutcome } from '../core/transforms/index.ts';
import { InputError, UsageError } from './command-error.ts';
import { fileProblem, isObject, LineWriter } from './ndjson.ts';

const OPTIONS = {
  fixtures: { type: 'string' },
  settings: { type: 'string' },
  timeout: { type: 'string' },
  update: { type: 'boolean' },
} as const;

const INPUT = '.input.json';
const EXPECTED = '.expected.json';
/** An expectation other than events: the outcome's kind, matched by its reason or message. */
const MARKS = { $dropped: 'dropped', $retry: 'retry', $error: 'failed' } as const;
type Mark = keyof typeof MARKS;

interface Fixture {
  name: string;
  input: Record<string, unknown>;
  expectedFile: string;
  /** undefined: there is no NAME.expected.json. */
  expected: unknown;
}

export async function transformCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  const [sub, file, ...extra] = positionals;
  if (sub !== 'test') throw new UsageError(sub === undefined ? 'name a command: sluice transform test FILE --fixtures DIR' : `unknown command "transform ${sub}"`);
  if (file === undefined) throw new UsageError('name the transform file: sluice transform test FILE --fixtures DIR');
  if (extra.length > 0) throw new UsageError(`one transform file at a time (also given: ${extra.join(' ')})`);
  if (values.fixtures === undefined || values.fixtures === '') throw new UsageError('--fixtures DIR is required: the folder of NAME.input.json and NAME.expected.json pairs');
  const timeoutMs = values.timeout === undefined ? TRANSFORM_TIMEOUT.default : Number(values.timeout);
  if (!Number.isInteger(timeoutMs) || timeoutMs < TRANSFORM_TIMEOUT.min || timeoutMs > TRANSFORM_TIMEOUT.max) {
    throw new UsageError(`--timeout must be a whole number of milliseconds from ${TRANSFORM_TIMEOUT.min} to ${TRANSFORM_TIMEOUT.max.toLocaleString('en-US')}, not "${values.timeout}"`);
  }
  const transformFile = path.resolve(file);
  checkTransformFile(file);
  const settings = readSettings(values.settings);
  const fixtures = readFixtures(values.fixtures);

  const transformer = createTransformer();
  let outcomes: TransformOutcome[];
  try {
    const loaded = transformer.loaded(transformFile);
    if (loaded.error !== null) throw new InputError(`the transform ${file} cannot be used: ${loaded.error}`);
    outcomes = await transformer.run(transformFile, fixtures.map((f) => ({ event: f.input, settings })), { timeoutMs });
  } finally {
    await transformer.close();
  }
  // A top level that throws (or loops) fails every call `load`: the file cannot be used, as a syntax error
  // cannot — exit 2, and no expectation written from it (before 2026-12-01 --update wrote the error into
  // every NAME.expected.json and exited 0).
  const unusable = (outcome: TransformOutcome) =>
    outcome.kind === 'failed' && (outcome.code === 'load' || (outcome.code === 'timeout' && outcome.message.startsWith("the transform's top level")));
  if (outcomes.length > 0 && outcomes.every(unusable)) {
    throw new InputError(`the transform ${file} cannot be used: ${(outcomes[0] as { message: string }).message}`);
  }

  const out = new LineWriter();
  let failed = 0;
  for (let i = 0; i < fixtures.length; i++) {
    const fixture = fixtures[i]!;
    const outcome = outcomes[i]!;
    if (values.update) {
      const wanted = expectationOf(outcome);
      if (fixture.expected !== undefined && sameJson(fixture.expected, wanted)) {
        await out.line(`pass     ${fixture.name}`);
        continue;
      }
      fs.writeFileSync(fixture.expectedFile, `${JSON.stringify(wanted, null, 2)}\n`);
      await out.line(`updated  ${fixture.name}: ${path.basename(fixture.expectedFile)} now holds ${summary(outcome)}`);
      continue;
    }
    const differences = verdict(fixture, outcome);
    if (differences.length === 0) {
      await out.line(`pass  ${fixture.name}`);
      continue;
    }
    failed++;
    await out.line(`FAIL  ${fixture.name}`);
    for (const line of differences) await out.line(`        ${line}`);
    if (outcome.kind === 'failed' && outcome.stack) for (const line of outcome.stack.split('\n').slice(1)) await out.line(`      ${line}`);
    for (const log of outcome.logs) await out.line(`        log (${log.level}): ${log.text}`);
  }
  const passed = fixtures.length - failed;
  await out.line(
    values.update
      ? `${plural(fixtures.length, 'fixture')} of ${file}: expectations written where the outcome differed`
      : `${plural(fixtures.length, 'fixture')} of ${file}: ${formatN(passed)} passed, ${formatN(failed)} failed`,
  );
  await out.flush();
  return failed > 0 ? 1 : 0;
}

function formatN(n: number): string {
  return n.toLocaleString('en-US');
}

function checkTransformFile(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch (error) {
    throw new InputError(fileProblem(file, error));
  }
  if (stat.isDirectory()) throw new InputError(`cannot read ${file}: it is a folder, not a transform file`);
}

/** --settings: a JSON object, given inline (it begins with "{") or as a file holding one. */
function readSettings(given: string | undefined): Record<string, unknown> {
  if (given === undefined) return {};
  const inline = given.trimStart().startsWith('{');
  let text = given;
  if (!inline) {
    try {
      text = fs.readFileSync(given, 'utf8');
    } catch (error) {
      throw new InputError(`--settings: ${fileProblem(given, error)} (give a JSON object, or a file holding one)`);
    }
  }
  let settings: unknown;
  try {
    settings = JSON.parse(text);
  } catch (error) {
    throw new InputError(`--settings${inline ? '' : ` (${given})`} is not JSON: ${(error as Error).message}`);
  }
  if (!isObject(settings)) throw new InputError(`--settings${inline ? '' : ` (${given})`} must be a JSON object, the settings handed to every call`);
  return settings;
}

function readFixtures(dir: string): Fixture[] {
  let names: string[];
  try {
    if (!fs.statSync(dir).isDirectory()) throw new InputError(`--fixtures ${dir} is a file, not a folder of fixtures`);
    names = fs.readdirSync(dir);
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError((error as NodeJS.ErrnoException).code === 'ENOENT' ? `--fixtures ${dir}: there is no such folder` : `--fixtures ${dir}: ${(error as Error).message}`);
  }
  const inputs = names.filter((n) => n.endsWith(INPUT)).map((n) => n.slice(0, -INPUT.length)).sort();
  if (inputs.length === 0) throw new InputError(`${dir} holds no fixtures: name each event NAME${INPUT}, beside the outcome it should have, NAME${EXPECTED}`);
  return inputs.map((name) => {
    const inputFile = path.join(dir, `${name}${INPUT}`);
    const expectedFile = path.join(dir, `${name}${EXPECTED}`);
    const event = readJson(inputFile);
    if (!isObject(event)) throw new InputError(`${inputFile} must hold one event (a JSON object), not ${kindOf(event)}`);
    const expected = fs.existsSync(expectedFile) ? readJson(expectedFile) : undefined;
    if (expected !== undefined && expected !== null && typeof expected !== 'object') {
      throw new InputError(`${expectedFile} must hold the event sent (an object), the events of a fan-out (an array), null for a drop, or {"$dropped"|"$retry"|"$error": "text"}; not ${kindOf(expected)}`);
    }
    return { name, input: event, expectedFile, expected };
  });
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new InputError(fileProblem(file, error));
  }
  try {
    return JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    throw new InputError(`${file} is not JSON: ${(error as Error).message}`);
  }
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return `a ${typeof value} (${showValue(value)})`;
}

/** The fixture's expectation when it is a mark ({"$error": "text"}): which, and its text. */
function markOf(expected: unknown): { mark: Mark; text: string } | null {
  if (!isObject(expected)) return null;
  const keys = Object.keys(expected);
  if (keys.length !== 1 || !Object.hasOwn(MARKS, keys[0]!)) return null;
  const text = expected[keys[0]!];
  return { mark: keys[0] as Mark, text: typeof text === 'string' ? text : JSON.stringify(text) };
}

/** How the outcome differs from the fixture's expectation: none when it passes. */
function verdict(fixture: Fixture, outcome: TransformOutcome): string[] {
  const { expected } = fixture;
  if (expected === undefined) return [`there is no ${path.basename(fixture.expectedFile)}: write what the transform should send (or run with --update); it gave ${summary(outcome)}`];
  if (expected === null) return outcome.kind === 'dropped' ? [] : [`wanted it dropped (null), got ${summary(outcome)}`];
  const mark = markOf(expected);
  if (mark) {
    const said = outcome.kind === 'dropped' ? outcome.reason : outcome.kind === 'retry' || outcome.kind === 'failed' ? outcome.message : null;
    if (outcome.kind === MARKS[mark.mark] && said !== null && said.includes(mark.text)) return [];
    return [`wanted ${MARKS[mark.mark] === 'failed' ? 'a failure' : MARKS[mark.mark] === 'retry' ? 'a retry' : 'it dropped'}${mark.text ? ` saying "${mark.text}"` : ''}, got ${summary(outcome)}`];
  }
  if (outcome.kind !== 'events') return [`wanted ${Array.isArray(expected) ? plural(expected.length, 'event') : 'an event'}, got ${summary(outcome)}`];
  if (Array.isArray(expected)) return fieldDifferences(expected, outcome.events, '');
  if (outcome.events.length !== 1) return [`wanted one event, got a fan-out of ${formatN(outcome.events.length)} events: ${showValue(outcome.events)}`];
  return fieldDifferences(expected, outcome.events[0], '');
}

/** What an --update writes for this outcome. */
function expectationOf(outcome: TransformOutcome): unknown {
  switch (outcome.kind) {
    case 'events':
      return outcome.events.length === 1 ? outcome.events[0] : outcome.events;
    case 'dropped':
      return null;
    case 'retry':
      return { $retry: outcome.message };
    case 'failed':
      return { $error: outcome.message };
  }
}

/** The outcome in a few words, for a sentence. */
function summary(outcome: TransformOutcome): string {
  switch (outcome.kind) {
    case 'events':
      return outcome.events.length === 1 ? `an event (${outcome.changed ? 'changed' : 'unchanged'})` : `a fan-out of ${formatN(outcome.events.length)} events`;
    case 'dropped':
      return `it dropped (${outcome.reason})`;
    case 'retry':
      return `a retry (RetryError: ${outcome.message})`;
    case 'failed':
      return `a failure (${outcome.code}: ${outcome.message})`;
  }
}

import fs from 'node:fs';
import path from 'node:path';
import { configFileSchema, describeIssues, type ConfigFile } from '../../../shared/settings.ts';

/** A config file that cannot be used, with one line per problem, each naming the field. */
export class ConfigError extends Error {
  readonly problems: string[];

  constructor(file: string, problems: string[]) {
    super(`${file}: ${problems.length === 1 ? problems[0] : `\n  ${problems.join('\n  ')}`}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export function parseConfig(text: string, file = 'config'): ConfigFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(file, [`not valid JSON: ${(error as Error).message}`]);
  }
  const result = configFileSchema.safeParse(json);
  if (!result.success) throw new ConfigError(file, describeIssues(result.error));
  return result.data;
}

export function loadConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    throw new ConfigError(file, [`cannot read the file: ${(error as Error).message}`]);
  }
  const config = parseConfig(text, file);
  // Plan and transform files are named relative to the config file that names them, wherever Sluice is started from.
  for (const plan of config.trackingPlans ?? []) {
    if (plan.file !== undefined) plan.file = path.resolve(path.dirname(file), plan.file);
  }
  resolveTransformFiles(config, path.dirname(file), file, 'the config file');
  return config;
}

/**
 * Makes each destination's `transform.file` absolute (relative to `dir`: the config file's folder, or
 * the working directory for a config given as an object) and refuses, as a ConfigError naming the
 * field, a file that is not there.
 */
export function resolveTransformFiles(config: ConfigFile, dir: string, file: string, base: string): void {
  const problems: string[] = [];
  config.destinations.forEach((destination, i) => {
    if (!destination.transform) return;
    const written = destination.transform.file;
    destination.transform.file = path.resolve(dir, written);
    const problem = transformFileProblem(destination.transform.file, { written, base });
    if (problem) problems.push(`destinations[${i}].transform.file: ${problem}`);
  });
  if (problems.length > 0) throw new ConfigError(file, problems);
}

/**
 * Why a transform file cannot be used (null when it can): not absolute (no `relative`: a destination
 * saved through the API names its file absolutely), not there, or not a file. `relative`: how a config
 * wrote it, and what it is relative to.
 */
export function transformFileProblem(file: string, relative: { written: string; base: string } | null): string | null {
  if (relative === null && !path.isAbsolute(file)) return `${file} is not an absolute path: name the transform's file by its full path`;
  const written = relative?.written ?? null;
  const shown = written !== null && written !== file ? `${written} (${file})` : file;
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    return `there is no file ${shown}: write the transform there, or correct the path${relative && written !== file ? ` (relative to ${relative.base})` : ''}`;
  }
  return stat.isFile() ? null : `${shown} is not a file: name the transform's JavaScript file`;
}

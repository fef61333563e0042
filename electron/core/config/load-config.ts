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
  // A plan file is named relative to the config file that names it, wherever Sluice is started from.
  for (const plan of config.trackingPlans ?? []) {
    if (plan.file !== undefined) plan.file = path.resolve(path.dirname(file), plan.file);
  }
  return config;
}

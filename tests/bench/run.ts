// `npm run bench`: runs the benchmarks and saves their figures to bench-results/ (<name>.json; a scale
// run of other sizes than the defaults, scale-<messages>.json: results-name.ts).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runClientBench } from './client.bench.ts';
import { runDeliveryBench } from './delivery.bench.ts';
import { runIngestBench } from './ingest.bench.ts';
import { runLatencyBench } from './latency.bench.ts';
import { runUiBench } from './ui.bench.ts';
import { runAudiencesBench } from './audiences.bench.ts';
import { runStartupBench } from './startup.bench.ts';
import { runForwardBench } from './forward.bench.ts';
import { runTestingBench } from './testing.bench.ts';
import { runMatchersBench } from './matchers.bench.ts';
import { runCoverageBench } from './coverage.bench.ts';
import { runFacetsBench } from './facets.bench.ts';
import { runFiltersBench } from './filters.bench.ts';
import { runOverviewBench } from './overview.bench.ts';
import { runOverviewCostBench } from './overview-cost.bench.ts';
import { runIssuesBench } from './issues.bench.ts';
import { runIssuesCostBench } from './issues-cost.bench.ts';
import { runPlansBench } from './plans.bench.ts';
import { runRetentionBench } from './retention.bench.ts';
import { runScaleBench } from './scale.bench.ts';
import { runSearchBench } from './search.bench.ts';
import { runStatementsBench } from './statements.bench.ts';
import { runStoreCheckBench } from './store-check.bench.ts';
import { runTransformsBench } from './transforms.bench.ts';
import { runWriteCostBench } from './write-cost.bench.ts';
import { resultsName } from './results-name.ts';

const BENCHES: Record<string, () => Promise<unknown>> = {
  ingest: runIngestBench,
  delivery: runDeliveryBench,
  client: runClientBench,
  ui: runUiBench,
  audiences: runAudiencesBench,
  startup: runStartupBench,
  forward: runForwardBench,
  testing: runTestingBench,
  matchers: runMatchersBench,
  filters: runFiltersBench,
  facets: runFacetsBench,
  coverage: runCoverageBench,
  plans: runPlansBench,
  retention: runRetentionBench,
  scale: runScaleBench,
  search: runSearchBench,
  statements: runStatementsBench,
  'store-check': runStoreCheckBench,
  latency: runLatencyBench,
  transforms: runTransformsBench,
  overview: runOverviewBench,
  'overview-cost': runOverviewCostBench,
  issues: runIssuesBench,
  'issues-cost': runIssuesCostBench,
  'write-cost': runWriteCostBench,
};

const wanted = process.argv.slice(2);
const names = wanted.length ? wanted : Object.keys(BENCHES);
const outDir = path.resolve(import.meta.dirname, '../../bench-results');
fs.mkdirSync(outDir, { recursive: true });

for (const name of names) {
  const bench = BENCHES[name];
  if (!bench) {
    console.error(`unknown benchmark "${name}"; known: ${Object.keys(BENCHES).join(', ')}`);
    process.exit(2);
  }
  const results = resultsName(name);
  if (results.note) console.log(results.note);
  const file = path.join(outDir, `${results.name}.json`);
  const figures = await bench();
  const record = {
    benchmark: name,
    date: new Date().toISOString(),
    machine: { cpus: os.cpus().length, cpu: os.cpus()[0]?.model, memoryGiB: Math.round(os.totalmem() / 2 ** 30), node: process.version },
    figures,
  };
  fs.writeFileSync(file, `${JSON.stringify(record, null, 2)}\n`);
  console.log(`saved ${path.relative(process.cwd(), file)}\n`);
}

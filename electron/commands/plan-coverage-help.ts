/**
 * The help of `sluice plan coverage`, apart from cli.ts so that it stays short. Constants only: cli.ts
 * imports this before it checks the Node.js version.
 */
import { defaultDataDir } from '../core/config/data-dir.ts';

export const PLAN_COVERAGE_HELP = `Usage: sluice plan coverage --plan FILE [options]

Says which events of a tracking plan were seen, seen with violations or never seen, with counts, and
which unplanned events were seen: in a data folder's store (the counts it keeps: no message is read,
as quick at a million; a running sluice serve is fine) or in a file of messages (--from, each one
checked against the plan here). A running relay's own plans: GET /api/v1/plans/coverage, or
sluice/testing's coverage() and sluice/matchers' toCoverPlan().

Options:
  --plan FILE        the tracking plan (Sluice's format, or a Segment Protocols or RudderStack export)
  --data-dir DIR     the data folder (default: ${defaultDataDir()}); with sluice serve --ephemeral,
                     the ready line's "dataDir"
  --source NAME      only the messages of this source (again for each more: the sources the
                     relay's plan checks; without it, every source counts)
  --plan-name NAME   whose violations to count: the plan's trackingPlans[].name in the relay's config
                     (default: the only plan the store holds violations of)
  --from FILE        the messages of FILE instead of a store (- reads stdin): sluice export's NDJSON,
                     messages, batches, pages of the HTTP API, or a HAR of Tracking API calls
  --json             the report as one JSON object
  --fail-on-missing  exit 2 when a planned event was never seen
  -h, --help         show this help

Exit status: 0 reported; 2 with --fail-on-missing, a planned event was never seen (they are listed
as "never seen"), or the report could not be made (options, plan, store, file).`;

/**
 * The help of `sluice plan codegen` and `sluice plan diff`, apart from cli.ts so that it stays short.
 * Constants only: cli.ts imports this before it checks the Node.js version.
 */

export const PLAN_CODEGEN_HELP = `Usage: sluice plan codegen --plan FILE --out DIR [options]

Writes DIR/index.ts, a TypeScript module with one typed function per track event of a tracking plan
(Sluice's format, or a Segment Protocols or RudderStack export): trackOrderCompleted(props, options)
takes the event's properties as the plan describes them (required and optional properties, enums as
literal unions, nested objects and arrays), so that a wrong property fails to compile. Call
setClient(analytics) once with the client; each function sends through it. The plan's descriptions
become JSDoc. The module says nothing of the time it was made: regenerating an unchanged plan
changes nothing. Running again replaces the module; any other DIR/index.ts is refused.

Options:
  --plan FILE      the tracking plan (required)
  --out DIR        the folder to write index.ts into (required; made if missing)
  --client NAME    the client the functions send with: analytics-node (default; @segment/analytics-node,
                   a call names its userId or anonymousId), analytics-next (@segment/analytics-next,
                   AnalyticsBrowser or Analytics: the browser knows the user) or sluice (sluice/client)
  -h, --help       show this help

Exit status: 0 written (or already up to date); 2 it could not be (options, plan, folder).`;

export const PLAN_DIFF_HELP = `Usage: sluice plan diff OLD NEW [options]

Compares two tracking plans (each in Sluice's format, or a Segment Protocols or RudderStack export:
the two need not be in the same one) and prints each change, grouped by event, as breaking (a client
sending what OLD allowed may now be refused: an event or property removed, a property made required,
a type narrowed, an enum value removed, additionalProperties made false, a bound tightened) or
compatible (an event or optional property added, a type widened, an enum value added, a description
changed). For CI: fail a pull request that breaks the plan.

Options:
  --json             one JSON object: {"breaking": N, "compatible": N, "changes": [...]}
  --allow-breaking   exit 0 even when a change is breaking (the changes are still printed)
  -h, --help         show this help

Exit status: 0 no breaking change (or --allow-breaking); 1 a breaking change; 2 the plans could not
be compared (options, a plan that cannot be read).`;

// Fault injection's operations (`faults.*` of shared/channels/faults.ts): add a fault the ingestion
// endpoint answers with, list the active ones and the requests faulted, clear them. The policy is
// faults/ingest-faults.ts; the HTTP API (/api/v1/faults) and sluice/testing (`sluice.faults`) adapt these.
import type { OperationContext, OperationsOf } from './parts.ts';

export function faultOperations(p: OperationContext): OperationsOf<'faults.list' | 'faults.ingest' | 'faults.clear'> {
  return {
    'faults.list': () => p.faults.list(),
    'faults.ingest': (fault) => p.faults.add(fault),
    'faults.clear': ({ forget }) => p.faults.clear(forget),
  };
}

// How one flush of the writer thread (writer-worker.ts) divides what waits into group commits.
//
// A request's answer — POST /v1/track's 200, a test's wait for its message — waits for its commit.
// Delivery results (earlier rounds' attempts) and other writes (a prune, a pin) do not need to be in
// the same transaction, so when they wait beside requests they get a commit of their own after the
// requests': recording them no longer holds the requests' answers. One group otherwise (one commit
// is cheaper than two when nothing is held).
export interface Waiting<R, S, O> {
  requests: R[];
  results: S[];
  ops: O[];
}

/** The groups to commit, in order: requests first, on their own when anything else waits too. */
export function commitGroups<R, S, O>(waiting: Waiting<R, S, O>): Waiting<R, S, O>[] {
  const { requests, results, ops } = waiting;
  if (requests.length === 0 && results.length === 0 && ops.length === 0) return [];
  if (requests.length === 0 || (results.length === 0 && ops.length === 0)) return [waiting];
  return [{ requests, results: [], ops: [] }, { requests: [], results, ops }];
}

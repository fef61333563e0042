// How a flush of the writer thread divides what waits into group commits (writer/commit-groups.ts):
// requests get a commit of their own when delivery results or other writes wait beside them, so that
// their answers do not wait for those to be recorded; otherwise one commit.
import { describe, expect, it } from 'vitest';
import { commitGroups } from '../../electron/core/writer/commit-groups.ts';

describe('commitGroups', () => {
  it('commits requests first, on their own, when results or other writes wait too; in their order', () => {
    expect(commitGroups({ requests: ['r1', 'r2'], results: ['s1'], ops: ['o1'] })).toEqual([
      { requests: ['r1', 'r2'], results: [], ops: [] },
      { requests: [], results: ['s1'], ops: ['o1'] },
    ]);
    expect(commitGroups({ requests: ['r1'], results: [], ops: ['o1'] })).toEqual([
      { requests: ['r1'], results: [], ops: [] },
      { requests: [], results: [], ops: ['o1'] },
    ]);
  });

  it('makes one commit when only requests wait, or nothing but results and writes, and none when nothing waits', () => {
    expect(commitGroups({ requests: ['r1'], results: [], ops: [] })).toEqual([{ requests: ['r1'], results: [], ops: [] }]);
    expect(commitGroups({ requests: [], results: ['s1', 's2'], ops: ['o1'] })).toEqual([{ requests: [], results: ['s1', 's2'], ops: ['o1'] }]);
    expect(commitGroups({ requests: [], results: [], ops: [] })).toEqual([]);
  });
});

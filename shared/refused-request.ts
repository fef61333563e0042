/**
 * A request refused as a whole (bad JSON, over the size limit, an unknown write key…) is stored as one
 * rejected entry (electron/core/ingest/refused-requests.ts). When the request named no source Sluice
 * knows, the entry's sourceId is NO_SOURCE_ID, which no source has (their ids start at 1).
 */
export const NO_SOURCE_ID = 0;

/** A source as lists and tests name it: its name; "no source" for NO_SOURCE_ID; "source N" once deleted. */
export function sourceLabel(name: string | undefined, sourceId: number): string {
  return name ?? (sourceId === NO_SOURCE_ID ? 'no source' : `source ${sourceId}`);
}

// A page of the stream away from its newest end: the page newer than a message (paging up after a
// jump), the one at a position among the matches (the jump to the oldest; the scrollbar), or the one
// at a time. Positions are found in the counting thread (store/message-counter.ts): walking half a
// million matches takes longer than the core's thread should be held.
import type { MessageSummary, ParsedRequestOf, Responses } from '../../../shared/contract.ts';
import type { MessageCounter } from '../store/message-counter.ts';
import type { CountQuery } from '../store/message-counts.ts';
import type { MessagesRepo, StoredMessage } from '../store/messages-repo.ts';

/** What a jumped page is read with: the messages, the counting thread, and the list's summaries. */
export interface JumpParts {
  messages: Pick<MessagesRepo, 'list'>;
  counter: Pick<MessageCounter, 'offset' | 'atTime' | 'count'>;
  summarize: (found: StoredMessage[]) => MessageSummary[];
}

export async function jumpedPage(
  p: JumpParts,
  query: CountQuery,
  request: ParsedRequestOf<'messages.list'>,
): Promise<Responses['messages.list']> {
  const limit = request.limit;
  if (request.afterId !== undefined) {
    const found = p.summarize(p.messages.list({ ...query, afterId: request.afterId, limit }));
    return { messages: found, next: null, newer: found.length === limit ? found[0]!.id : null };
  }
  const beforeId = request.offset !== undefined ? await p.counter.offset(query, request.offset) : await p.counter.atTime(request.at!);
  if (beforeId === null) return { messages: [], next: null, newer: null, position: null };
  const found = p.summarize(p.messages.list({ ...query, beforeId, limit }));
  // Where the page starts among the matches (newest first): the offset asked for, or those above a time's page.
  const position = request.offset ?? (await p.counter.count({ ...query, idFrom: beforeId }, 'position')).matching;
  return { messages: found, next: found.length === limit ? found.at(-1)!.id : null, newer: found[0]?.id ?? null, position };
}

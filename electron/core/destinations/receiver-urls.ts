/**
 * Destinations stored with the built-in receiver's address in their URL — `http://127.0.0.1:<port>/hooks/<hook>`,
 * made before it could be named, or typed from the Receiver view — name it from now on
 * (`sluice://receiver/<hook>`, shared/receiver-hooks.ts): its port is chosen at each start, so the
 * address would reach nothing (or another server) after a start on another port. Migrated rather than
 * resolved at each send: the stored URL then says where requests go, in the editor and in every
 * attempt, and nothing guesses at send time whether a loopback port was the receiver's.
 *
 * A URL counts as the receiver's when it names a hook on the receiver where it listens now, or where
 * it listened at the previous start (recorded in the store), or, in the destination the stream's
 * "Send sample events" made for it ("Built-in receiver"), on any loopback port: stores from before
 * the receiver's address was recorded. Any other loopback URL may be the user's own server, and stays.
 */
import { hookOf, receiverHook, receiverHookUrl } from '../../../shared/receiver-hooks.ts';
import { BUILTIN_DESTINATION } from '../composer/samples.ts';
import type { DestinationsRepo } from '../store/destinations-repo.ts';
import type { DatabaseSync } from 'node:sqlite';
import { lastReceiverUrl, rememberReceiverUrl } from '../store/receiver-address.ts';

/** Rewrites the receiver's addresses in stored destinations as its name, and records where it listens now; the destinations changed. */
export function adoptReceiverUrls(db: DatabaseSync, destinations: Pick<DestinationsRepo, 'list' | 'renameWebhookUrls'>, receiverUrl: string): string[] {
  const previous = lastReceiverUrl(db);
  const changed: string[] = [];
  for (const destination of destinations.list()) {
    const rename = (url: string): string => {
      if (receiverHook(url) !== null) return url;
      const hook =
        hookOf(url, receiverUrl) ??
        (previous !== null ? hookOf(url, previous) : null) ??
        (destination.name === BUILTIN_DESTINATION ? loopbackHook(url) : null);
      return hook === null ? url : receiverHookUrl(hook);
    };
    if (destinations.renameWebhookUrls(destination.id, rename)) changed.push(destination.name);
  }
  if (previous !== receiverUrl) rememberReceiverUrl(db, receiverUrl);
  return changed;
}

/** The hook an http URL names at `/hooks/<hook>` on a loopback host, at whatever port. */
function loopbackHook(url: string): string | null {
  try {
    const { protocol, port } = new URL(url);
    return protocol === 'http:' ? hookOf(url, `http://127.0.0.1${port ? `:${port}` : ''}`) : null;
  } catch {
    return null;
  }
}

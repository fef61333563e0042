import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { http } from '../node-http.ts';
import type { AddressInfo, Socket } from 'node:net';
import type { InboxEntry, ReceiverBehaviour, SignatureVerdict } from '../../../shared/receiver.ts';
import { verifyAsSeedReceiver, verifyStandard } from '../signature/signature.ts';
import type { EventBus } from '../bus/event-bus.ts';
import type { Clock } from '../clock.ts';
import { utf8Prefix } from '../utf8-prefix.ts';
import { bodyCarriesUser, textMatcher } from './inbox-user.ts';

/** Requests the inbox keeps (the oldest go first); it is a demo receiver, not an archive. */
export const INBOX_LIMIT = 10_000;
/** A body is read this far to check its signature (Sluice's own bodies stay far below: 500 KB requests). */
const MAX_READ_BYTES = 4 * 1024 * 1024;
/** Of each body the inbox keeps this much (the entry says how big it was)... */
export const KEPT_BODY_BYTES = 64 * 1024;
/**
 * ...and of all entries together this much — bodies, headers and hook names, as `entryBytes` counts
 * them: memory stays bounded whatever is posted (big headers, a new hook name per request).
 */
export const INBOX_BYTES = 64 * 1024 * 1024;
/** What an entry holds beyond its strings (the object, id, times, verdict), counted against INBOX_BYTES. */
export const ENTRY_OVERHEAD_BYTES = 256;
/** A hanging hook drops the connection after this long, so demos do not leak sockets. */
const HANG_MS = 60_000;

export interface BuiltinReceiverOptions {
  host: string;
  port: number;
  bus: EventBus;
  clock: Clock;
  /** The secrets of the destinations that post to this hook (for the signature check). */
  secretsFor: (hook: string) => SigningSecrets;
  /** Every destination's secrets: a replay to this receiver is signed by whichever it went through. */
  allSecrets: () => SigningSecrets;
  random?: () => number;
}

/**
 * A webhook receiver started with the app, so a new user sees signed deliveries without writing a
 * server: POST /hooks/<name> is recorded with its signature verdict and answered as that hook's
 * behaviour says (200, a status, a random mix, or never).
 */
export class BuiltinReceiver {
  readonly #o: BuiltinReceiverOptions;
  readonly #server: Server;
  readonly #inbox: InboxEntry[] = [];
  /** What the entries in the inbox hold in memory, about (entryBytes). */
  #inboxBytes = 0;
  /** Entries let go to stay within INBOX_LIMIT and INBOX_BYTES. */
  #evicted = 0;
  readonly #behaviours = new Map<string, ReceiverBehaviour>();
  readonly #sockets = new Set<Socket>();
  #nextId = 1;
  #url = '';

  constructor(options: BuiltinReceiverOptions) {
    this.#o = options;
    this.#server = http.createServer((req, res) => this.#handle(req, res));
    this.#server.on('connection', (socket: Socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  get url(): string {
    return this.#url;
  }

  /** The URL of a named hook. */
  hookUrl(name: string): string {
    return `${this.#url}/hooks/${encodeURIComponent(name)}`;
  }

  async listen(): Promise<string> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(this.#o.port, this.#o.host, () => resolve());
    });
    const { address, port, family } = this.#server.address() as AddressInfo;
    this.#url = `http://${family === 'IPv6' ? `[${address}]` : address}:${port}`;
    return this.#url;
  }

  inbox(hook?: string): InboxEntry[] {
    return hook === undefined ? [...this.#inbox] : this.#inbox.filter((entry) => entry.hook === hook);
  }

  /** Forgets every request received (a reset); the hooks keep their behaviours. */
  clearInbox(): void {
    this.#inbox.length = 0;
    this.#inboxBytes = 0;
  }

  /** How many requests in the inbox carry this userId in their body (inbox-user.ts). */
  countUser(userId: string): number {
    let count = 0;
    const asText = textMatcher(userId);
    for (const entry of this.#inbox) if (bodyCarriesUser(entry.body, userId, asText)) count++;
    return count;
  }

  /** Removes the requests whose body carries this userId (a purge of the user), and says so on the bus; their ids. */
  forgetUser(userId: string): number[] {
    const removed: number[] = [];
    let kept = 0;
    const asText = textMatcher(userId);
    for (const entry of this.#inbox) {
      if (bodyCarriesUser(entry.body, userId, asText)) {
        removed.push(entry.id);
        this.#inboxBytes -= entryBytes(entry);
      } else {
        this.#inbox[kept++] = entry;
      }
    }
    this.#inbox.length = kept;
    if (removed.length > 0) this.#o.bus.emit('receiver.removed', removed);
    return removed;
  }

  /** The inbox's own accounting: entries kept, their bytes as entryBytes counts them, entries let go. */
  usage(): { entries: number; bytes: number; evicted: number } {
    return { entries: this.#inbox.length, bytes: this.#inboxBytes, evicted: this.#evicted };
  }

  behaviour(hook: string): ReceiverBehaviour {
    return this.#behaviours.get(hook) ?? { mode: 'ok' };
  }

  /** The hooks told to answer other than 200 (and any set back to it). */
  behaviours(): Record<string, ReceiverBehaviour> {
    return Object.fromEntries(this.#behaviours);
  }

  setBehaviour(hook: string, behaviour: ReceiverBehaviour): void {
    this.#behaviours.set(hook, behaviour);
  }

  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const path = (req.url ?? '/').split('?', 1)[0]!;
    const match = /^\/hooks\/([^/]+)\/?$/.exec(path);
    if (!match || req.method !== 'POST') {
      res.writeHead(match ? 405 : 404, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ error: match ? 'use POST' : 'post to /hooks/<name>' }));
      return;
    }
    const hook = safeDecode(match[1]!);
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      if (size < MAX_READ_BYTES) chunks.push(chunk);
      size += chunk.length;
    });
    req.on('end', () => {
      const read = Buffer.concat(chunks);
      const behaviour = this.behaviour(hook);
      const status = answer(behaviour, this.#o.random ?? Math.random);
      const kept = utf8Prefix(read, KEPT_BODY_BYTES);
      const entry: InboxEntry = {
        id: this.#nextId++,
        hook,
        receivedAt: this.#o.clock.now(),
        headers: { ...req.headers },
        body: kept.toString('utf8'),
        ...(size > kept.length ? { bodyBytes: size } : {}),
        signature: this.#verdict(hook, read.toString('utf8'), req.headers),
        answeredStatus: status,
      };
      this.#keep(entry);
      this.#o.bus.emit('receiver.received', [entry]);
      if (status === null) {
        setTimeout(() => req.socket.destroy(), HANG_MS).unref();
        return;
      }
      res.writeHead(status, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ received: entry.id, signature: entry.signature }));
    });
  }

  /** Adds an entry, letting the oldest go past INBOX_LIMIT requests or INBOX_BYTES. */
  #keep(entry: InboxEntry): void {
    this.#inbox.push(entry);
    this.#inboxBytes += entryBytes(entry);
    let drop = 0;
    while (this.#inbox.length - drop > INBOX_LIMIT || (this.#inboxBytes > INBOX_BYTES && this.#inbox.length - drop > 1)) {
      this.#inboxBytes -= entryBytes(this.#inbox[drop]!);
      drop++;
    }
    if (drop > 0) {
      this.#inbox.splice(0, drop);
      this.#evicted += drop;
    }
  }

  /**
   * Checks whichever signatures the request carries — the seed's X-Signature, Standard Webhooks' — each
   * against every destination's secrets of its kind: valid when each one checks, invalid when one does not.
   */
  #verdict(hook: string, body: string, headers: IncomingHttpHeaders): SignatureVerdict {
    const x = first(headers['x-signature']);
    const standard = first(headers['webhook-signature']);
    if (x === undefined && standard === undefined) {
      const expected = this.#o.secretsFor(hook);
      return expected.shared.length > 0 || expected.standard.length > 0 ? 'missing' : 'unsigned';
    }
    const secrets = this.#o.allSecrets();
    const checks: (boolean | null)[] = [];
    if (x !== undefined) checks.push(secrets.shared.length === 0 ? null : secrets.shared.some((secret) => verifyAsSeedReceiver(body, x, secret)));
    if (standard !== undefined) {
      const sent = { id: first(headers['webhook-id']), timestamp: first(headers['webhook-timestamp']), signature: standard };
      checks.push(secrets.standard.length === 0 ? null : verifyStandard(body, sent, secrets.standard));
    }
    if (checks.includes(false)) return 'invalid';
    return checks.includes(null) ? 'unverifiable' : 'valid';
  }
}

/**
 * About what an entry holds in memory: its strings — hook name, header names and values, body — at two
 * bytes a UTF-16 unit (an upper bound: V8 keeps Latin-1 strings in one), plus a fixed overhead.
 */
export function entryBytes(entry: InboxEntry): number {
  let units = entry.hook.length + entry.body.length;
  for (const [name, value] of Object.entries(entry.headers)) {
    units += name.length;
    if (typeof value === 'string') units += value.length;
    else if (Array.isArray(value)) for (const item of value) units += item.length;
  }
  return units * 2 + ENTRY_OVERHEAD_BYTES;
}

function answer(behaviour: ReceiverBehaviour, random: () => number): number | null {
  switch (behaviour.mode) {
    case 'ok':
      return 200;
    case 'status':
      return behaviour.status;
    case 'random':
      return random() < behaviour.failureRate ? behaviour.status : 200;
    case 'hang':
      return null;
  }
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A destination's secrets by kind: the seed's shared secrets and Standard Webhooks' (whsec_…). */
export interface SigningSecrets {
  shared: string[];
  standard: string[];
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * A secret as a destination form holds it (the shared secret, a tracking API's write key). `stored`:
 * the destination has one that the inspector has not read (shown masked; read with
 * destinations.revealSecret only on Reveal or at save).
 */
export type SecretState = { kind: 'none' } | { kind: 'stored'; masked: string } | { kind: 'value'; value: string };

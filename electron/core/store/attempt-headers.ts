// A webhook attempt's request headers as the store keeps them: by reference. Most of what a request
// carries is the same for every request to a webhook (User-Agent, Content-Type, the webhook's own
// headers, the loop chain): that set is stored once (header_sets) and each attempt points at it. Only
// the values that change are left blank in the set (JSON null): X-Signature, which is its delivery's
// signature (deliveries.signature, kept with the body it signs), and Standard Webhooks' headers,
// which are the attempt's own (its id, its timestamp, and the signature made from them: the secret is
// never stored, so the signature is kept as sent rather than made again on read).

/** Headers whose value each attempt sends anew: kept as the attempt's own values. */
const OWN = new Set(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
/** The header that carries the delivery's signature (deliveries.signature) — when its value is that. */
const DELIVERY_SIGNATURE = 'X-Signature';

/**
 * A request's headers as a header set and the attempt's own values, both JSON (AttemptRecord's
 * headerSet and requestHeaders). `signature`: the round's X-Signature, which its result records on the
 * delivery; an X-Signature of another value stays in the set as it is.
 */
export function headersByReference(headers: Record<string, string>, signature: string | null): { headerSet: string; own: string } {
  const set: Record<string, string | null> = {};
  let own: Record<string, string> | undefined;
  for (const name in headers) {
    const value = headers[name]!;
    if (OWN.has(name)) {
      set[name] = null;
      (own ??= {})[name] = value;
    } else set[name] = name === DELIVERY_SIGNATURE && value === signature ? null : value;
  }
  return { headerSet: JSON.stringify(set), own: own ? JSON.stringify(own) : '{}' };
}

/**
 * The headers an attempt sent, in the order sent: its header set with each blank filled from the
 * attempt's own values, else from its delivery's signature. Without a set (`headerSet` null: attempts
 * recorded before sets, a forward's), `own` holds them all.
 */
export function headersSent(headerSet: string | null, own: string, deliverySignature: string | null): Record<string, string> {
  const values = JSON.parse(own) as Record<string, string>;
  if (headerSet === null) return values;
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(JSON.parse(headerSet) as Record<string, string | null>)) {
    const sent = value ?? values[name] ?? (name === DELIVERY_SIGNATURE ? deliverySignature : null);
    if (sent !== null) headers[name] = sent;
  }
  return headers;
}

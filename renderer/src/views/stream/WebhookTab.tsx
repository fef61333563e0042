import { useMemo, useState } from 'react';
import type { DeliveryView, DestinationView, MessageDetail } from '../../../../shared/contract.ts';
import { webhookBody } from '../../../../shared/webhook-body.ts';
import { CopyButton } from '../../components/CopyButton.tsx';
import { HeaderValue } from '../../components/HeaderValue.tsx';
import { curlCommand } from '../../lib/curl.ts';
import { isForward, notRequestedReason, requestsOf } from './request-shown.ts';
import { SignatureCheck } from './SignatureCheck.tsx';
import { SignedDeliveryHint } from './SignedDeliveryHint.tsx';
import { RequestBody } from './RequestBody.tsx';
import { useWholeBody } from './use-whole-body.ts';
import { plural } from '../../lib/format.ts';
import { useInspector, useInspectorState } from '../../store/react.ts';

function headerOf(headers: Record<string, string>, name: string): string | null {
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return v;
  return null;
}

/** The signature headers the table highlights. */
const SIGNATURE_HEADERS = new Set(['x-signature', 'webhook-signature']);

export function WebhookTab({ message, delivery, destinations }: {
  message: MessageDetail;
  delivery: DeliveryView | null;
  destinations: readonly DestinationView[];
}) {
  const destination = delivery ? destinations.find((d) => d.id === delivery.destinationId) : undefined;
  const forward = isForward(destination);
  // Not sent yet: the body as the destination would send it (a forward: the message as a Tracking API takes it).
  const shape = forward ? 'forward' : (destination?.options.bodyShape ?? 'seed');
  const preview = useMemo(() => {
    if (!delivery || delivery.body !== null || !message.message) return null;
    return JSON.stringify(webhookBody(message.message, shape));
  }, [delivery, message.message, shape]);
  const [urlIndex, setUrlIndex] = useState(0);
  const receiverUrl = useInspectorState((s) => s.info?.receiverUrl ?? '');
  const inspector = useInspector();
  // The body sent (or, before any attempt, the one that will be); a big one only in part until asked.
  const whole = useWholeBody(delivery, preview ?? '');

  if (!delivery) {
    return (
      <div className="tab-empty">
        <p>{noDeliveryReason(message)}</p>
        {message.status === 'accepted' ? <SignedDeliveryHint sourceId={message.sourceId} /> : null}
      </div>
    );
  }
  if (delivery.status === 'skipped') {
    return (
      <div className="tab-empty">
        <p>Nothing was sent: the delivery was skipped — {delivery.skipReason ?? 'its integrations turn webhooks off'}.</p>
      </div>
    );
  }
  const requests = requestsOf(delivery, destination, receiverUrl);
  const request = requests[Math.min(urlIndex, requests.length - 1)];
  const body = whole.text;
  const sent = delivery.body !== null;
  const bytes = whole.bytes;
  const signature = request ? headerOf(request.headers, 'x-signature') : delivery.signature;
  // Standard Webhooks' headers are made at each attempt: only a recorded request has them.
  const standardSignature = request?.recorded ? headerOf(request.headers, 'webhook-signature') : null;
  const standard = standardSignature
    ? { id: headerOf(request!.headers, 'webhook-id'), timestamp: headerOf(request!.headers, 'webhook-timestamp'), signature: standardSignature }
    : null;
  // Sent, but not to this URL (the destination's URL changed since, or it was left out): its headers are only a reconstruction.
  const notRequested = sent && request !== undefined && !request.recorded;
  // Sent to a URL the destination no longer has: what it has now.
  const nowPostsTo = request?.recorded && !request.current ? requests.filter((r) => r.current).map((r) => r.url) : [];
  // Where a request goes: a URL naming the built-in receiver posts to its address now.
  const address = request ? (request.address ?? request.url) : '';
  const what = forward ? 'forward' : 'webhook';
  // A forward's request carried this message in {"batch": […]} with others of its round: curl sends it alone, uncompressed.
  // It sends what was sent: a credential the view masks is read first (`deliveries.revealHeader`).
  const curl = async () => {
    const [text, headers] = await Promise.all([whole.load(), unmasked()]);
    return forward
      ? curlCommand(address, withoutHeader(headers, 'content-encoding'), `{"batch":[${text}]}`)
      : curlCommand(address, headers, text);
  };
  /** A masked header's value as sent (an attempt's request's credentials come masked from the core). */
  const reveal = (name: string) => async () => {
    const result = await inspector.call('deliveries.revealHeader', { deliveryId: delivery.id, attemptId: request!.attemptId!, ...(request!.forwarded ? { forwarded: true } : {}), name });
    if (!result.ok) throw new Error(result.error.message);
    return result.value.value;
  };
  const unmasked = async (): Promise<Record<string, string>> => {
    const headers = { ...request!.headers };
    for (const name of request!.masked ?? []) headers[name] = await reveal(name)();
    return headers;
  };
  // A check of a body shown in part reads the whole body first.
  const loadBody = whole.cut ? whole.load : undefined;

  return (
    <div className="webhook-tab">
      {requests.length > 1 ? (
        <div className="segmented" role="group" aria-label={forward ? 'Forward URL' : 'Webhook URL'}>
          {requests.map((r, i) => (
            <button key={r.url} type="button" className="btn btn-small" aria-pressed={i === urlIndex} onClick={() => setUrlIndex(i)}>
              {r.url}
              {sent && !r.recorded ? <span className="muted"> · not sent</span> : !r.current ? <span className="muted"> · sent, no longer the destination’s</span> : null}
            </button>
          ))}
        </div>
      ) : null}
      {request ? (
        <>
          {forward ? (
            <h3 className="section-title">
              Forward <span className="muted">— to the Tracking API of “{destination!.name}”, in a batch</span>
            </h3>
          ) : null}
          <div className="request-line">
            <span className="method">POST</span>
            <code className="url" aria-label={forward ? 'Forward URL' : 'Webhook URL'}>
              {request.url}
            </code>
            <CopyButton text={request.url} label={`Copy ${what} URL`} />
            <CopyButton getText={curl} label="Copy as curl">
              Copy as curl
            </CopyButton>
          </div>
          {request.address ? (
            <p className="muted request-address">
              The built-in receiver, by name: {request.recorded ? 'sent to it wherever it listened then' : 'posts to it wherever it listens'}; now at{' '}
              <code>{request.address}</code>.
            </p>
          ) : null}
          {nowPostsTo.length > 0 ? (
            <p className="banner banner-info url-changed" role="note">
              The destination’s URL changed after this request: it posts to {nowPostsTo.map((url, i) => (
                <span key={url}>
                  {i > 0 ? ', ' : ''}
                  <code>{url}</code>
                </span>
              ))}{' '}
              now. This request went to the URL above.
            </p>
          ) : null}
          <h3 className="section-title">
            Headers{' '}
            <span className="muted">
              {request.recorded ? '— as sent with the latest attempt' : notRequested ? '— as they would be sent (no request was made to this URL)' : '— will be sent (no attempt yet)'}
            </span>
          </h3>
          <table className="headers-table" aria-label="Request headers">
            <tbody>
              {Object.entries(request.headers).map(([name, value]) => (
                <tr key={name} className={SIGNATURE_HEADERS.has(name.toLowerCase()) ? 'header-signature' : undefined}>
                  <th scope="row">{name}</th>
                  <td>
                    <HeaderValue name={name} value={value} reveal={request.masked?.includes(name) ? reveal(name) : undefined} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </>
      ) : (
        <p className="muted">The destination has no webhook URL.</p>
      )}
      <h3 className="section-title">
        Body{' '}
        <span className="muted">
          {forward
            ? sent
              ? `— this message as forwarded, ${plural(bytes, 'byte')}, one of the request's {"batch": […]}`
              : `— will be forwarded (as it stands now: ${plural(bytes, 'byte')}), in a {"batch": […]} request`
            : sent
              ? `— exactly as sent, ${plural(bytes, 'byte')}`
              : `— will be sent (mapped now: ${plural(bytes, 'byte')})`}
        </span>
        <CopyButton getText={whole.load} label="Copy body" />
      </h3>
      <RequestBody body={whole} />
      {/* A forward is not signed (the API reads its write key). X-Signature's check unless the request carried only Standard Webhooks' signature; each its own when it carried both. Keyed: another delivery, URL or signature starts a fresh check. */}
      {forward ? null : notRequested ? (
        <p className="muted not-requested" role="note">
          {notRequestedReason(request, requests, destination, delivery)}
        </p>
      ) : !standard || signature ? (
        <SignatureCheck
          key={`${delivery.id} ${request?.url ?? ''} ${sent ? signature : ''}`}
          body={body}
          loadBody={loadBody}
          signed={{ scheme: 'x-signature', signature: sent ? signature : null }}
          destination={destination}
          bodySent={sent}
          title={standard ? 'X-Signature check' : 'Signature check'}
        />
      ) : null}
      {standard && sent && !notRequested ? (
        <SignatureCheck
          key={`${delivery.id} ${request?.url ?? ''} ${standard.signature}`}
          body={body}
          loadBody={loadBody}
          signed={{ scheme: 'standard', sent: standard }}
          destination={destination}
          bodySent
          title="Standard Webhooks signature check"
        />
      ) : null}
    </div>
  );
}

function withoutHeader(headers: Record<string, string>, name: string): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).filter(([k]) => k.toLowerCase() !== name));
}

function noDeliveryReason(m: MessageDetail): string {
  if (m.status === 'rejected') return `Not forwarded: the message was rejected at ingestion (${m.rejectCode}: ${m.rejectReason}).`;
  if (m.status === 'duplicate') return 'Not forwarded: this source already sent a message with this messageId.';
  return 'Not forwarded: no enabled destination received this message’s source when it arrived. A replay (its Replay tab) sends it to a destination now.';
}

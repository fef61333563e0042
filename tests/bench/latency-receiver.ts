// The latency benchmark's receiver, in its own process: answers every request 200 and, for a request
// carrying probe messages (their ids start with "probe-"), tells the parent which path got which probes
// and when (its clock, epoch ms: the parent corrects by the offset `ping` measures).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

const now = () => performance.timeOrigin + performance.now();
const requests: Record<string, number> = {};
const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = now();
    const kind = (req.url ?? '/').split('/')[1] ?? '';
    requests[kind] = (requests[kind] ?? 0) + 1;
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': '16' }).end('{"success":true}');
    const body = Buffer.concat(chunks).toString('utf8');
    if (body.includes('probe-')) process.send!({ kind, at, ids: [...new Set(body.match(/probe-[0-9a-z-]+/g))] });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.on('message', (message) => {
  if (message === 'ping') process.send!({ pong: now() });
  if (message === 'count') process.send!({ requests });
  if (message === 'stop') server.close(() => process.exit(0));
});

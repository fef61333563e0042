// A webhook receiver for the delivery benchmark, in its own process: reads each body, answers 200.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

let received = 0;
const server = http.createServer((req, res) => {
  req.on('data', () => {});
  req.on('end', () => {
    received++;
    res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' }).end('ok');
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })}\n`);
});
process.on('message', (message) => {
  if (message === 'count') process.send!({ received });
  if (message === 'stop') server.close(() => process.exit(0));
});

/**
 * node:http, taken with `process.getBuiltinModule` rather than `import http from 'node:http'`. To
 * import node:http as an ES module, Node 24 reads every one of its exports, and its lazy `WebSocket`,
 * `CloseEvent` and `MessageEvent` exports load Node's internal copy of undici: ~45 ms of a start that
 * takes ~230 ms (measured: README, Benchmarks › Start-up), for classes Sluice never uses.
 */
export const http = process.getBuiltinModule('node:http');

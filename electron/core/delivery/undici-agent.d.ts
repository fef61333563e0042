// undici's Agent module on its own, as webhook-sender.ts loads it: the package's index would also load
// fetch, WebSocket, the caches and the mocks. It is what undici's index exports as `Agent`.
declare module 'undici/lib/dispatcher/agent.js' {
  import type { Agent } from 'undici';
  const AgentClass: typeof Agent;
  export default AgentClass;
}

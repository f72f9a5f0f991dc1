// A2A client driven by the e2e suite: @a2a-js/sdk (npm, 1.3.0), nobody
// here wrote it. Usage: node client.cjs BASE_URL TOKEN MESSAGE
// It discovers the agent, sends MESSAGE (blocking), streams a second one,
// reads the first task back and lists the caller's tasks, and prints one
// JSON object with what it saw.
'use strict';
const { ClientFactory, JsonRpcTransportFactory, DefaultAgentCardResolver } = require('@a2a-js/sdk/client');
const { Role, TaskState } = require('@a2a-js/sdk');
const crypto = require('node:crypto');

const [base, token, text] = process.argv.slice(2);
const authFetch = (url, init = {}) => {
  const headers = new Headers(init.headers || {});
  headers.set('Authorization', 'Bearer ' + token);
  return fetch(url, { ...init, headers });
};

const message = (t) => ({
  messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text', value: t }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined, extensions: [], referenceTaskIds: [],
});

const textOf = (parts) => (parts || []).map((p) => (p.content && p.content.$case === 'text' ? p.content.value : '')).join('');

(async () => {
  const factory = new ClientFactory({
    transports: [new JsonRpcTransportFactory({ fetchImpl: authFetch })],
    cardResolver: new DefaultAgentCardResolver({ fetchImpl: authFetch }),
  });
  const client = await factory.createFromUrl(base);
  const card = await client.getAgentCard();
  const sent = await client.sendMessage({ tenant: '', message: message(text), configuration: undefined, metadata: undefined });
  const task = sent.payload && sent.payload.$case === 'task' ? sent.payload.value : sent;
  const streamed = [];
  for await (const ev of client.sendMessageStream({ tenant: '', message: message(text + ' (streamed)'), configuration: undefined, metadata: undefined })) {
    const p = ev.payload;
    if (!p) continue;
    if (p.$case === 'task') streamed.push('task:' + TaskState[p.value.status.state]);
    if (p.$case === 'statusUpdate') streamed.push('status:' + TaskState[p.value.status.state]);
    if (p.$case === 'artifactUpdate') streamed.push('artifact:' + textOf(p.value.artifact.parts));
  }
  const got = await client.getTask({ tenant: '', id: task.id, historyLength: undefined });
  const list = await client.listTasks({ tenant: '', contextId: '', status: 0, pageSize: 10, pageToken: '', historyLength: undefined, statusTimestampAfter: undefined, includeArtifacts: false });
  console.log(JSON.stringify({
    card: { name: card.name, streaming: card.capabilities && card.capabilities.streaming },
    task: { id: task.id, state: TaskState[task.status.state], answer: textOf((task.artifacts[0] || {}).parts) },
    streamed,
    get: { id: got.id, state: TaskState[got.status.state] },
    listed: list.tasks.map((t) => t.id),
  }));
})().catch((err) => { console.error(err && err.stack || String(err)); process.exit(1); });

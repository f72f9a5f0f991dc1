// A Vercel AI SDK client of beamclaw's /v1/chat/completions, as an app
// would write it: the `ai` package's generateText and streamText over
// @ai-sdk/openai-compatible's chat model, with tools declared by the app.
//
//   node client.mjs MODE BASE_URL [USER]
//
// MODE:
//   execute  a tool with execute, multi-step: the SDK runs the tool and
//            sends its result back; prints the steps' calls and the text.
//            USER goes in the body's "user" (providerOptions).
//   stream   the same through streamText (the tool call arrives as a
//            streamed tool_calls delta).
//   call     a tool without execute: the SDK hands the call back; prints
//            the finish reason, the calls and result.response.messages.
//            USER goes in the X-User-Id header.
//   result   reads call's output on stdin and sends the conversation again
//            with the tool's result; prints the text. USER as for call.
//   refused  declares a function named read_file (one of the agent's own
//            tools); prints the error the SDK throws.
//
// The SDK is resolved from NODE_PATH (ES modules do not read it, so it is
// loaded through a require anchored there).
import { createRequire } from 'node:module';
import path from 'node:path';

const nodePath = process.env.NODE_PATH;
if (!nodePath) {
  console.error('NODE_PATH must name the node_modules holding ai');
  process.exit(2);
}
const require = createRequire(path.join(path.dirname(nodePath), 'package.json'));
const { generateText, streamText, tool, stepCountIs } = require('ai');
const { createOpenAICompatible } = require('@ai-sdk/openai-compatible');
const { z } = require('zod');

const PROMPT = 'call tool lookup {"q":"ada"}';
const [mode, baseURL, user = ''] = process.argv.slice(2);

function model(headers = {}) {
  const beamclaw = createOpenAICompatible({ name: 'beamclaw', baseURL, headers });
  return beamclaw.chatModel('default');
}

// lookup as an app declares it; with run, the SDK executes it.
function lookup(run) {
  const t = {
    description: 'Look a person up',
    inputSchema: z.object({ q: z.string() }),
  };
  if (run) t.execute = async ({ q }) => (q === 'ada' ? 'born 1815' : 'unknown');
  return tool(t);
}

function userOptions() {
  return user ? { beamclaw: { user } } : undefined;
}

function userHeader() {
  return user ? { 'X-User-Id': user } : {};
}

function stepsOf(steps) {
  return steps.map((s) => ({
    finishReason: s.finishReason,
    toolCalls: s.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
    toolResults: s.toolResults.map((r) => ({ toolCallId: r.toolCallId, toolName: r.toolName, output: r.output })),
  }));
}

// lookupRun is the request of execute and stream: lookup run by the SDK,
// up to three steps, the user in the body.
function lookupRun() {
  return {
    model: model(),
    tools: { lookup: lookup(true) },
    stopWhen: stepCountIs(3),
    prompt: PROMPT,
    providerOptions: userOptions(),
    maxRetries: 0,
  };
}

async function execute() {
  const result = await generateText(lookupRun());
  return { steps: stepsOf(result.steps), text: result.text };
}

async function stream() {
  const result = streamText(lookupRun());
  let streamed = '';
  for await (const delta of result.textStream) streamed += delta;
  return { steps: stepsOf(await result.steps), text: await result.text, streamed };
}

async function call() {
  const result = await generateText({
    model: model(userHeader()),
    tools: { lookup: lookup(false) },
    prompt: PROMPT,
    maxRetries: 0,
  });
  return {
    finishReason: result.finishReason,
    toolCalls: result.toolCalls.map((c) => ({ toolCallId: c.toolCallId, toolName: c.toolName, input: c.input })),
    messages: result.response.messages,
  };
}

async function readStdin() {
  let s = '';
  for await (const chunk of process.stdin) s += chunk;
  return JSON.parse(s);
}

async function result() {
  const prev = await readStdin();
  const results = prev.toolCalls.map((c) => ({
    type: 'tool-result',
    toolCallId: c.toolCallId,
    toolName: c.toolName,
    output: { type: 'text', value: 'born 1815' },
  }));
  const answer = await generateText({
    model: model(userHeader()),
    tools: { lookup: lookup(false) },
    messages: [{ role: 'user', content: PROMPT }, ...prev.messages, { role: 'tool', content: results }],
    maxRetries: 0,
  });
  return { finishReason: answer.finishReason, text: answer.text };
}

async function refused() {
  const read_file = tool({ description: 'Read a file', inputSchema: z.object({ path: z.string() }) });
  try {
    await generateText({ model: model(), tools: { read_file }, prompt: 'hello', maxRetries: 0 });
    return { error: null };
  } catch (e) {
    return { error: e.message, statusCode: e.statusCode ?? null, responseBody: e.responseBody ?? null };
  }
}

const modes = { execute, stream, call, result, refused };
if (!modes[mode]) {
  console.error(`unknown mode ${mode}: one of ${Object.keys(modes).join(', ')}`);
  process.exit(2);
}
console.log(JSON.stringify(await modes[mode]()));

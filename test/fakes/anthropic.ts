// A fake Anthropic API on loopback that speaks the Messages API closely enough for the real
// @anthropic-ai/sdk: JSON and server-sent-event replies, text, thinking and tool_use blocks, the real
// error body shape and statuses, API key (x-api-key or bearer) and anthropic-version checks, GET /v1/models.
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ScriptPlayer, chunks, hang, sendJson, startFakeServer, wait, type FakeServer, type RecordedRequest, type Script } from './provider-http.js';

export interface AnthropicReply {
  text?: string;
  thinking?: string;
  toolUses?: Array<{ id?: string; name: string; input: Record<string, unknown> }>;
  stopReason?: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';
  usage?: { input_tokens?: number; output_tokens?: number };
  /** Answer with an API error instead; `midStream` sends it as an SSE `error` event after message_start. */
  error?: { status: number; type?: string; message?: string; retryAfter?: number; midStream?: boolean };
  /** Wait this long before answering. */
  delayMs?: number;
  /** Never answer; the request hangs until the client gives up or the fake closes. */
  hang?: boolean;
}

/** A bare string is a text reply. */
export type AnthropicScript = Script<AnthropicReply | string>;

export interface FakeAnthropicOptions {
  script?: AnthropicScript;
  /** The key the fake accepts in x-api-key. */
  apiKey?: string;
  /** Models listed by GET /v1/models; when given, POST /v1/messages refuses any other model with a 404. */
  models?: string[];
}

export interface FakeAnthropic extends FakeServer {
  apiKey: string;
  setScript(script: AnthropicScript): void;
}

export const FAKE_ANTHROPIC_KEY = 'sk-ant-fake-test-key';
const DEFAULT_MODELS = ['claude-sonnet-5-5', 'claude-opus-5-5', 'claude-haiku-5-5'];
const DEFAULT_MESSAGES: Record<number, string> = {
  429: 'Number of request tokens has exceeded your per-minute rate limit',
  500: 'Internal server error',
  529: 'Overloaded',
};
const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  529: 'overloaded_error',
};

export async function startFakeAnthropic(options: FakeAnthropicOptions = {}): Promise<FakeAnthropic> {
  const apiKey = options.apiKey ?? FAKE_ANTHROPIC_KEY;
  const models = options.models ?? DEFAULT_MODELS;
  const player = new ScriptPlayer<AnthropicReply | string>(options.script ?? ['Hello from the fake Anthropic API.']);

  const server = await startFakeServer(async (req, res, closed) => {
    // The API takes the key as x-api-key or, as SDK 1.x sends it, as a bearer token.
    const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    const key = req.headers['x-api-key'] ?? bearer;
    if (key === undefined) return apiError(res, 401, 'x-api-key header is required');
    if (key !== apiKey) return apiError(res, 401, 'invalid x-api-key');
    if (!req.headers['anthropic-version']) return apiError(res, 400, 'anthropic-version: header is required');

    const model = /^\/v1\/models\/([^/]+)$/.exec(req.path)?.[1];
    if (req.method === 'GET' && req.path === '/v1/models') {
      const data = models.map(modelInfo);
      return sendJson(res, 200, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null });
    }
    if (req.method === 'GET' && model) {
      const id = decodeURIComponent(model);
      return models.includes(id) ? sendJson(res, 200, modelInfo(id)) : apiError(res, 404, `model: ${id}`);
    }
    if (req.method !== 'POST' || req.path !== '/v1/messages') return apiError(res, 404, 'Not found');

    const invalid = invalidMessageRequest(req.body);
    if (invalid) return apiError(res, 400, invalid);
    if (options.models && !models.includes(req.body.model)) return apiError(res, 404, `model: ${req.body.model}`);

    const scripted = await player.next(req);
    const reply: AnthropicReply = typeof scripted === 'string' ? { text: scripted } : scripted;
    if (reply.hang) return hang(closed);
    if (reply.delayMs) await wait(reply.delayMs, closed);
    if (closed.aborted) return;
    const message = buildMessage(req, reply);
    if (reply.error && !(reply.error.midStream && req.body.stream)) {
      return apiError(res, reply.error.status, reply.error.message, reply.error.type, reply.error.retryAfter);
    }
    if (req.body.stream) return streamMessage(res, message, reply.error);
    sendJson(res, 200, message, { 'request-id': requestId() });
  });
  return { ...server, apiKey, setScript: (script) => player.set(script) };
}

function invalidMessageRequest(body: any): string | null {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'request body must be a JSON object';
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (!Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  for (const [i, m] of body.messages.entries()) {
    if (m?.role !== 'user' && m?.role !== 'assistant') return `messages.${i}.role: Input should be 'user' or 'assistant'`;
  }
  return null;
}

type Block =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> };

interface Message {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: Block[];
  stop_reason: string;
  stop_sequence: null;
  stop_details: null;
  container: null;
  usage: { input_tokens: number; output_tokens: number; cache_creation_input_tokens: number; cache_read_input_tokens: number; service_tier: string };
}

function buildMessage(req: RecordedRequest, reply: AnthropicReply): Message {
  const content: Block[] = [];
  if (reply.thinking !== undefined) content.push({ type: 'thinking', thinking: reply.thinking, signature: `sig_${randomBytes(16).toString('hex')}` });
  if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
  for (const tool of reply.toolUses ?? []) {
    content.push({ type: 'tool_use', id: tool.id ?? `toolu_${randomBytes(12).toString('hex')}`, name: tool.name, input: tool.input });
  }
  const written = content.map((b) => (b.type === 'text' ? b.text : b.type === 'thinking' ? b.thinking : JSON.stringify(b.input))).join('');
  return {
    id: `msg_${randomBytes(12).toString('hex')}`,
    type: 'message',
    role: 'assistant',
    model: req.body.model,
    content,
    stop_reason: reply.stopReason ?? (reply.toolUses?.length ? 'tool_use' : 'end_turn'),
    stop_sequence: null,
    stop_details: null,
    container: null,
    usage: {
      input_tokens: reply.usage?.input_tokens ?? Math.max(1, Math.ceil(JSON.stringify([req.body.system ?? '', req.body.messages]).length / 4)),
      output_tokens: reply.usage?.output_tokens ?? Math.max(1, Math.ceil(written.length / 4)),
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 0,
      service_tier: 'standard',
    },
  };
}

/** The event sequence of the real streaming API, block by block. */
function streamMessage(res: ServerResponse, message: Message, error?: AnthropicReply['error']): void {
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': requestId() });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  const start = { ...message, content: [], stop_reason: null, usage: { ...message.usage, output_tokens: 1 } };
  send('message_start', { type: 'message_start', message: start });
  send('ping', { type: 'ping' });
  if (error) {
    const type = error.type ?? ERROR_TYPES[error.status] ?? 'api_error';
    send('error', { type: 'error', error: { type, message: error.message ?? DEFAULT_MESSAGES[error.status] ?? 'Internal server error' } });
    res.end();
    return;
  }
  message.content.forEach((block, index) => {
    if (block.type === 'text') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const text of chunks(block.text)) send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text } });
    } else if (block.type === 'thinking') {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
      for (const thinking of chunks(block.thinking)) {
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking } });
      }
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature: block.signature } });
    } else {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } });
      for (const partial_json of ['', ...chunks(JSON.stringify(block.input), 8)]) {
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json } });
      }
    }
    send('content_block_stop', { type: 'content_block_stop', index });
  });
  send('message_delta', {
    type: 'message_delta',
    delta: { stop_reason: message.stop_reason, stop_sequence: null },
    usage: { output_tokens: message.usage.output_tokens },
  });
  send('message_stop', { type: 'message_stop' });
  res.end();
}

function apiError(res: ServerResponse, status: number, message?: string, type?: string, retryAfter?: number): void {
  const headers: Record<string, string> = { 'request-id': requestId() };
  if (status === 429 || retryAfter !== undefined) headers['retry-after'] = String(retryAfter ?? 1);
  const errorType = type ?? ERROR_TYPES[status] ?? 'api_error';
  const text = message ?? DEFAULT_MESSAGES[status] ?? 'Internal server error';
  sendJson(res, status, { type: 'error', error: { type: errorType, message: text }, request_id: headers['request-id'] }, headers);
}

function modelInfo(id: string) {
  return { type: 'model', id, display_name: id, created_at: '2026-01-01T00:00:00Z' };
}

function requestId(): string {
  return `req_${randomBytes(12).toString('hex')}`;
}

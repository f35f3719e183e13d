// A fake Ollama server on loopback speaking its HTTP API: chat (NDJSON stream or one JSON, tool calls,
// thinking), model list, running models, pull with progress, delete, show and version. Installed models
// live in memory, so a pull makes a model usable and a delete takes it away.
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { ScriptPlayer, chunks, hang, sendJson, startFakeServer, wait, type FakeServer, type RecordedRequest, type Script } from './provider-http.js';

export interface OllamaReply {
  text?: string;
  thinking?: string;
  toolCalls?: Array<{ name: string; arguments: Record<string, unknown> }>;
  doneReason?: string;
  promptEvalCount?: number;
  evalCount?: number;
  /** Answer with an error: an HTTP status with {"error"}, or with `midStream` an {"error"} line in the stream. */
  error?: { status: number; message: string; midStream?: boolean };
  delayMs?: number;
  hang?: boolean;
}

export type OllamaScript = Script<OllamaReply | string>;

export interface FakeOllamaOptions {
  script?: OllamaScript;
  /** Models installed at start (default: llama3.2). */
  models?: string[];
  /** Models a pull can fetch; any well-formed name when absent. */
  registry?: string[];
  version?: string;
}

export interface FakeOllama extends FakeServer {
  setScript(script: OllamaScript): void;
  /** Installed models, full names (name:tag), sorted. */
  installed(): string[];
}

const NAME = /^[a-z0-9][a-z0-9._/-]*(:[a-zA-Z0-9._-]+)?$/;

export function fullName(name: string): string {
  return name.includes(':') ? name : `${name}:latest`;
}

export async function startFakeOllama(options: FakeOllamaOptions = {}): Promise<FakeOllama> {
  const installed = new Map<string, string>((options.models ?? ['llama3.2']).map((m) => [fullName(m), new Date().toISOString()]));
  const loaded = new Set<string>();
  const player = new ScriptPlayer<OllamaReply | string>(options.script ?? ['Hello from the fake Ollama server.']);
  const pullable = (name: string) => (options.registry ? options.registry.map(fullName).includes(name) : NAME.test(name));

  const server = await startFakeServer(async (req, res, closed) => {
    const route = `${req.method} ${req.path}`;
    if (route === 'GET /' || route === 'HEAD /') {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      return void res.end('Ollama is running');
    }
    if (route === 'GET /api/version') return sendJson(res, 200, { version: options.version ?? '0.9.0' });
    if (route === 'GET /api/tags') return sendJson(res, 200, { models: [...installed.keys()].sort().map((n) => describe(n, installed.get(n)!)) });
    if (route === 'GET /api/ps') {
      const expires = new Date(Date.now() + 5 * 60_000).toISOString();
      return sendJson(res, 200, { models: [...loaded].sort().map((n) => ({ ...describe(n, installed.get(n) ?? ''), expires_at: expires, size_vram: 0 })) });
    }
    const known = ['POST /api/chat', 'POST /api/pull', 'DELETE /api/delete', 'POST /api/show'];
    if (!known.includes(route)) {
      res.writeHead(404, { 'content-type': 'text/plain' });
      return void res.end('404 page not found');
    }
    if (typeof req.body !== 'object' || req.body === null) return sendJson(res, 400, { error: 'invalid request body: expected a JSON object' });
    const requested = req.body.model ?? req.body.name;
    if (typeof requested !== 'string' || requested === '') return sendJson(res, 400, { error: 'model is required' });
    const model = fullName(requested);

    switch (route) {
      case 'POST /api/chat': {
        if (!Array.isArray(req.body.messages)) return sendJson(res, 400, { error: 'messages must be an array' });
        if (!installed.has(model)) return sendJson(res, 404, { error: `model "${requested}" not found, try pulling it first` });
        const scripted = await player.next(req);
        const reply: OllamaReply = typeof scripted === 'string' ? { text: scripted } : scripted;
        if (reply.hang) return hang(closed);
        if (reply.delayMs) await wait(reply.delayMs, closed);
        if (closed.aborted) return;
        if (reply.error && !(reply.error.midStream && req.body.stream !== false)) {
          return sendJson(res, reply.error.status, { error: reply.error.message });
        }
        loaded.add(model);
        return chat(res, req, requested, reply);
      }
      case 'POST /api/pull':
        return pull(res, model, req.body.stream !== false, pullable(model), closed, () => installed.set(model, new Date().toISOString()));
      case 'DELETE /api/delete':
        if (!installed.delete(model)) return sendJson(res, 404, { error: `model '${requested}' not found` });
        loaded.delete(model);
        res.writeHead(200);
        return void res.end();
      default: {
        const modifiedAt = installed.get(model);
        if (!modifiedAt) return sendJson(res, 404, { error: `model '${requested}' not found` });
        const { details } = describe(model, modifiedAt);
        return sendJson(res, 200, {
          license: '',
          modelfile: `# Modelfile generated by the fake\nFROM ${model}\n`,
          parameters: 'stop "<|eot_id|>"',
          template: '{{ .Prompt }}',
          details,
          model_info: { 'general.architecture': 'llama', 'general.parameter_count': 3_212_749_888, 'llama.context_length': 131072 },
          capabilities: ['completion', 'tools'],
          modified_at: modifiedAt,
        });
      }
    }
  });
  return { ...server, setScript: (script) => player.set(script), installed: () => [...installed.keys()].sort() };
}

function chat(res: ServerResponse, req: RecordedRequest, model: string, reply: OllamaReply): void {
  const created_at = () => new Date().toISOString();
  const text = reply.text ?? '';
  const promptEvalCount = reply.promptEvalCount ?? Math.max(1, Math.ceil(JSON.stringify(req.body.messages).length / 4));
  const evalCount = reply.evalCount ?? Math.max(1, Math.ceil(text.length / 4));
  const toolCalls = reply.toolCalls?.map((call) => ({ function: { name: call.name, arguments: call.arguments } }));
  const final = {
    done: true,
    done_reason: reply.doneReason ?? 'stop',
    total_duration: 1_500_000,
    load_duration: 100_000,
    prompt_eval_count: promptEvalCount,
    prompt_eval_duration: 400_000,
    eval_count: evalCount,
    eval_duration: 1_000_000,
  };
  if (req.body.stream === false) {
    const message = { role: 'assistant', content: text, ...(reply.thinking ? { thinking: reply.thinking } : {}), ...(toolCalls ? { tool_calls: toolCalls } : {}) };
    return sendJson(res, 200, { model, created_at: created_at(), message, ...final });
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (value: unknown) => res.write(`${JSON.stringify(value)}\n`);
  const part = (message: Record<string, unknown>) => line({ model, created_at: created_at(), message: { role: 'assistant', content: '', ...message }, done: false });
  for (const thinking of chunks(reply.thinking ?? '')) part({ thinking });
  if (reply.error) {
    line({ error: reply.error.message });
    return void res.end();
  }
  for (const content of chunks(text)) part({ content });
  if (toolCalls) part({ tool_calls: toolCalls });
  line({ model, created_at: created_at(), message: { role: 'assistant', content: '' }, ...final });
  res.end();
}

async function pull(res: ServerResponse, model: string, stream: boolean, available: boolean, closed: AbortSignal, install: () => void): Promise<void> {
  const missing = 'pull model manifest: file does not exist';
  if (!stream) {
    if (!available) return sendJson(res, 500, { error: missing });
    install();
    return sendJson(res, 200, { status: 'success' });
  }
  res.writeHead(200, { 'content-type': 'application/x-ndjson' });
  const line = (value: unknown) => res.write(`${JSON.stringify(value)}\n`);
  line({ status: 'pulling manifest' });
  if (!available) {
    line({ error: missing });
    return void res.end();
  }
  const digest = `sha256:${createHash('sha256').update(model).digest('hex')}`;
  const total = 2_019_393_189;
  for (const completed of [0, total / 4, total / 2, (3 * total) / 4, total]) {
    if (closed.aborted) return;
    line({ status: `pulling ${digest.slice(7, 19)}`, digest, total, completed: Math.round(completed) });
    await wait(5, closed);
  }
  line({ status: 'verifying sha256 digest' });
  line({ status: 'writing manifest' });
  install();
  line({ status: 'success' });
  res.end();
}

function describe(name: string, modifiedAt: string) {
  const family = name.split(/[.:\d]/)[0] || 'llama';
  return {
    name,
    model: name,
    modified_at: modifiedAt,
    size: 2_019_393_189,
    digest: createHash('sha256').update(name).digest('hex'),
    details: { parent_model: '', format: 'gguf', family, families: [family], parameter_size: '3.2B', quantization_level: 'Q4_K_M' },
  };
}

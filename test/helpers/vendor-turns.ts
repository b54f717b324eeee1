// Scripted conversations in the vendors' own wire formats, for the stand-in vendor API of
// test/helpers/vendor-api.ts: what the real CLIs (test/e2e/real-cli) get when they call their
// model. A script is a list of turns of the main conversation: "call this tool with this input",
// "end with this text", "stall" (start the answer and never finish it) or "fail with this status".
// The turn answered is the number of the model's own turns already in the request's history, so a
// CLI that retries a request gets the same turn again; requests that are not the main
// conversation (a CLI's side requests: a title, a quota probe, a next-speaker check) get a short
// text answer of their own.
import type { ServerResponse } from 'node:http';
import type { Answer, Arrived } from './vendor-api.ts';

export type Turn =
  | { tool: string; input: Record<string, unknown> }
  | { text: string }
  /** Starts the answer's stream (headers and its first event) and never sends the rest. */
  | { stall: true }
  /** Answers with this status and body (a vendor's error: 429, 529, 5xx). */
  | { status: number; body: string };

/** A turn, or one made from what the CLI sent (its working directory, its tools' names). */
export type ScriptedTurn = Turn | ((request: SeenRequest) => Turn);

export interface SeenRequest {
  body: Record<string, unknown>;
  /** The whole request body as text (to look for a working directory, a tool's name). */
  text: string;
  /** The turn of the main conversation it asks for (0: the first). */
  turn: number;
}

export interface TurnUsage {
  input: number;
  output: number;
}

export interface Script {
  turns: ScriptedTurn[];
  /** Tokens each answer reports (default 1,000 in, 50 out). */
  usage?: TurnUsage;
  /** The model the answers say they come from (default: the one the request named). */
  model?: string;
  /** What the main conversation's requests were asked, in order (filled as they arrive). */
  seen: SeenRequest[];
}

export function script(turns: ScriptedTurn[], options: { usage?: TurnUsage; model?: string } = {}): Script {
  return { turns, seen: [], ...options };
}

/** Streams that stalled stay open until the API closes (its `close` destroys their sockets). */
function parse(arrived: Arrived): Record<string, unknown> {
  try {
    const v = JSON.parse(arrived.body) as unknown;
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function pick(s: Script, body: Record<string, unknown>, text: string, turn: number): Turn {
  const request: SeenRequest = { body, text, turn };
  s.seen.push(request);
  const t = s.turns[Math.min(turn, s.turns.length - 1)];
  if (t === undefined) return { text: 'Done.' };
  return typeof t === 'function' ? t(request) : t;
}

function sse(res: ServerResponse): (event: string | undefined, data: unknown) => void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
  return (event, data) => res.write(`${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
}

function failWith(res: ServerResponse, t: { status: number; body: string }): void {
  res.writeHead(t.status, { 'content-type': 'application/json' });
  res.end(t.body);
}

/** The path of the directory a CLI says it works in, from the text it sent (its system prompt's environment section). */
export function workingDirectory(request: SeenRequest): string {
  const m =
    /working directory: (\/[^\s"\\]+)/i.exec(request.text) ??
    /<cwd>(\/[^<]+)<\/cwd>/.exec(request.text) ??
    /working in the directory:? ?`?(\/[^\s`"\\]+)/i.exec(request.text) ??
    /(?:cwd|directory)[^/]{0,40}(\/[^\s"'`\\]+)/i.exec(request.text);
  if (!m) throw new Error(`no working directory in the request: ${request.text.slice(0, 400)}`);
  return m[1]!.replace(/[.,;:]+$/, '');
}

// --- Anthropic Messages (Claude Code) ------------------------------------------------------------

/**
 * `POST /v1/messages` with `stream: true`: message_start, one content block (a tool_use whose
 * input arrives as input_json_delta, or text), message_delta with the stop reason and the usage,
 * message_stop. A request without tools is a side request (Claude Code's title or quota probe).
 */
export function anthropicMessages(s: Script): Answer {
  return (_req, res, arrived) => {
    if (!arrived.path.startsWith('/v1/messages') || arrived.path.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const body = parse(arrived);
    const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: string }>) : [];
    const main = Array.isArray(body.tools) && body.tools.length > 0;
    const turn: Turn = main ? pick(s, body, arrived.body, messages.filter((m) => m.role === 'assistant').length) : { text: 'Side answer.' };
    if ('status' in turn) return failWith(res, turn);
    const model = s.model ?? (typeof body.model === 'string' ? body.model : 'claude');
    const usage = main ? (s.usage ?? { input: 1000, output: 50 }) : { input: 5, output: 1 };
    const id = `msg_${arrived.connection}_${Date.now()}`;
    if (body.stream !== true) {
      // A non-streaming request (a side request): the whole message as one JSON document.
      const content =
        'tool' in turn
          ? [{ type: 'tool_use', id: `toolu_${id}`, name: turn.tool, input: turn.input }]
          : [{ type: 'text', text: 'stall' in turn ? '' : turn.text }];
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          id,
          type: 'message',
          role: 'assistant',
          model,
          content,
          stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn',
          stop_sequence: null,
          usage: { input_tokens: usage.input, output_tokens: usage.output },
        }),
      );
      return;
    }
    const send = sse(res);
    send('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: usage.input, output_tokens: 1 },
      },
    });
    if ('stall' in turn) return;
    if ('tool' in turn) {
      send('content_block_start', {
        type: 'content_block_start',
        index: 0,
        content_block: { type: 'tool_use', id: `toolu_${id}`, name: turn.tool, input: {} },
      });
      const json = JSON.stringify(turn.input);
      const half = Math.floor(json.length / 2);
      for (const part of [json.slice(0, half), json.slice(half)]) {
        send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'input_json_delta', partial_json: part } });
      }
    } else {
      send('content_block_start', { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } });
      send('content_block_delta', { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: turn.text } });
    }
    send('content_block_stop', { type: 'content_block_stop', index: 0 });
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: 'tool' in turn ? 'tool_use' : 'end_turn', stop_sequence: null },
      usage: { output_tokens: usage.output },
    });
    send('message_stop', { type: 'message_stop' });
    res.end();
  };
}

// --- OpenAI Responses (Codex) ---------------------------------------------------------------------

/** The tools a Responses request offers, by name, with their type (`function`, `custom`, …). */
export function responsesTools(request: SeenRequest): Record<string, string> {
  const tools = Array.isArray(request.body.tools) ? (request.body.tools as Array<{ type?: string; name?: string }>) : [];
  return Object.fromEntries(tools.filter((t) => t.name).map((t) => [t.name!, t.type ?? 'function']));
}

/**
 * `POST …/responses` with `stream: true`: response.created, the output item (a function call whose
 * arguments are the input's JSON, a custom tool call whose input is `input.input`, or an assistant
 * message) as response.output_item.added/done, then response.completed with the usage.
 */
export function openaiResponses(s: Script, options: { tools?: Record<string, 'function' | 'custom'> } = {}): Answer {
  return (req, res, arrived) => {
    if (req.method !== 'POST') {
      // Codex tries a WebSocket first (GET with an upgrade); refused, it falls back to https at once.
      res.writeHead(426, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"use https"}}');
      return;
    }
    const body = parse(arrived);
    const input = Array.isArray(body.input) ? (body.input as Array<{ type?: string; role?: string }>) : [];
    const own = input.filter(
      (i) => ['function_call', 'custom_tool_call', 'local_shell_call'].includes(i.type ?? '') || (i.type === 'message' && i.role === 'assistant'),
    );
    const turn = pick(s, body, arrived.body, own.length);
    if ('status' in turn) return failWith(res, turn);
    const model = s.model ?? (typeof body.model === 'string' ? body.model : 'gpt');
    const usage = s.usage ?? { input: 1000, output: 50 };
    const id = `resp_${arrived.connection}_${s.seen.length}`;
    const send = sse(res);
    send('response.created', { type: 'response.created', response: { id, object: 'response', model, status: 'in_progress', output: [] } });
    if ('stall' in turn) return;
    let item: Record<string, unknown>;
    if ('tool' in turn) {
      const kind = options.tools?.[turn.tool] ?? responsesTools(s.seen.at(-1)!)[turn.tool] ?? 'function';
      item =
        kind === 'custom'
          ? { type: 'custom_tool_call', id: `ctc_${id}`, call_id: `call_${id}`, name: turn.tool, input: String(turn.input.input ?? ''), status: 'completed' }
          : { type: 'function_call', id: `fc_${id}`, call_id: `call_${id}`, name: turn.tool, arguments: JSON.stringify(turn.input), status: 'completed' };
    } else {
      item = { type: 'message', id: `msg_${id}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: turn.text, annotations: [] }] };
    }
    send('response.output_item.added', {
      type: 'response.output_item.added',
      output_index: 0,
      item: { ...item, ...('content' in item ? { content: [] } : {}) },
    });
    if ('text' in turn)
      send('response.output_text.delta', { type: 'response.output_text.delta', item_id: `msg_${id}`, output_index: 0, content_index: 0, delta: turn.text });
    send('response.output_item.done', { type: 'response.output_item.done', output_index: 0, item });
    send('response.completed', {
      type: 'response.completed',
      response: {
        id,
        object: 'response',
        model,
        status: 'completed',
        output: [item],
        usage: {
          input_tokens: usage.input,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage.output,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage.input + usage.output,
        },
      },
    });
    res.end();
  };
}

// --- Outages: a vendor down for a CLI's first runs -------------------------------------------------

/** The CLI session a request belongs to (one run of the CLI): Claude Code's and Codex's own header for it. */
export function sessionOf(arrived: Arrived): string | undefined {
  const id = arrived.headers['x-claude-code-session-id'] ?? arrived.headers['session-id'];
  return typeof id === 'string' ? id : undefined;
}

export interface Outage {
  /** The vendor's answer: down for the first `runs` sessions, then `answer`. */
  answer: Answer;
  /** The sessions seen, in the order they first arrived. */
  sessions: string[];
  /** The requests answered with the outage's status. */
  failed: Arrived[];
}

/**
 * A vendor that answers `status` and `body` (a 529 "overloaded", a 503, a 429) to every request of
 * the first `runs` runs of the CLI (told apart by their session: a CLI's own retries within a run
 * meet the outage too), and as `answer` does to every request of the runs after (Infinity: it never
 * recovers). Requests of no session (a connectivity probe) are answered by `answer`.
 */
export function outage(answer: Answer, o: { status: number; body: string; runs: number }): Outage {
  const out: Outage = {
    sessions: [],
    failed: [],
    answer: (req, res, arrived) => {
      const session = sessionOf(arrived);
      if (session === undefined) return answer(req, res, arrived);
      if (!out.sessions.includes(session)) out.sessions.push(session);
      if (out.sessions.indexOf(session) >= o.runs) return answer(req, res, arrived);
      out.failed.push(arrived);
      failWith(res, o);
    },
  };
  return out;
}

// --- OpenAI Chat Completions (Copilot CLI's provider mode, its default wire API) ------------------

/** The tools a Chat Completions request offers, by name. */
export function chatCompletionsTools(request: SeenRequest): string[] {
  const tools = Array.isArray(request.body.tools) ? (request.body.tools as Array<{ function?: { name?: string } }>) : [];
  return tools.flatMap((t) => (t.function?.name ? [t.function.name] : []));
}

/**
 * `POST …/chat/completions` with `stream: true`: chunks of `chat.completion.chunk` (the role, then a
 * tool call whose arguments arrive in two pieces, or the text), the finish reason, a last chunk
 * with no choices and the usage (what `stream_options.include_usage` asks for), then `[DONE]`. The
 * turn is the number of assistant messages in the history; a request without tools is a side
 * request (a title, a summary) and gets a short text. A request without `stream` gets the whole
 * completion as one JSON document.
 */
export function openaiChatCompletions(s: Script): Answer {
  return (req, res, arrived) => {
    if (req.method !== 'POST' || !arrived.path.includes('/chat/completions')) {
      // A model list or a probe of some other path: an empty list, so a CLI that asks knows none.
      res.writeHead(req.method === 'GET' ? 200 : 404, { 'content-type': 'application/json' });
      res.end(req.method === 'GET' ? '{"object":"list","data":[]}' : '{"error":{"message":"not found"}}');
      return;
    }
    const body = parse(arrived);
    const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: string }>) : [];
    const main = Array.isArray(body.tools) && body.tools.length > 0;
    const turn: Turn = main ? pick(s, body, arrived.body, messages.filter((m) => m.role === 'assistant').length) : { text: 'Side answer.' };
    if ('status' in turn) return failWith(res, turn);
    const model = s.model ?? (typeof body.model === 'string' ? body.model : 'gpt');
    const usage = main ? (s.usage ?? { input: 1000, output: 50 }) : { input: 5, output: 1 };
    const id = `chatcmpl_${arrived.connection}_${s.seen.length}`;
    const created = Math.floor(Date.now() / 1000);
    const call = {
      id: `call_${id}`,
      type: 'function',
      function: { name: 'tool' in turn ? turn.tool : '', arguments: 'tool' in turn ? JSON.stringify(turn.input) : '' },
    };
    const finish = 'tool' in turn ? 'tool_calls' : 'stop';
    const usageOf = { prompt_tokens: usage.input, completion_tokens: usage.output, total_tokens: usage.input + usage.output };
    if (body.stream !== true) {
      const message =
        'tool' in turn ? { role: 'assistant', content: null, tool_calls: [call] } : { role: 'assistant', content: 'stall' in turn ? '' : turn.text };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id, object: 'chat.completion', created, model, choices: [{ index: 0, message, finish_reason: finish }], usage: usageOf }));
      return;
    }
    const send = sse(res);
    const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
      send(undefined, { id, object: 'chat.completion.chunk', created, model, choices, ...extra });
    chunk([{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }]);
    if ('stall' in turn) return;
    if ('tool' in turn) {
      const json = call.function.arguments;
      const half = Math.floor(json.length / 2);
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, ...call, function: { name: turn.tool, arguments: json.slice(0, half) } }] }, finish_reason: null }]);
      chunk([{ index: 0, delta: { tool_calls: [{ index: 0, function: { arguments: json.slice(half) } }] }, finish_reason: null }]);
    } else {
      chunk([{ index: 0, delta: { content: turn.text }, finish_reason: null }]);
    }
    chunk([{ index: 0, delta: {}, finish_reason: finish }]);
    chunk([], { usage: usageOf });
    send(undefined, '[DONE]');
    res.end();
  };
}

// --- Gemini API generateContent (Gemini CLI) ------------------------------------------------------

/** What a Gemini request's `contents` hold: the conversation, the model's own turns as `role: model`. */
interface GeminiContent {
  role?: string;
  parts?: Array<Record<string, unknown>>;
}

/** The function declarations a Gemini request offers, by name. */
export function geminiTools(request: SeenRequest): string[] {
  const tools = Array.isArray(request.body.tools) ? (request.body.tools as Array<{ functionDeclarations?: Array<{ name?: string }> }>) : [];
  return tools.flatMap((t) => (t.functionDeclarations ?? []).map((d) => d.name ?? '')).filter(Boolean);
}

/**
 * `POST /v1beta/models/<model>:streamGenerateContent?alt=sse` (and `:generateContent`, its
 * one-document form): a candidate whose content is one part (a `functionCall` with the input as
 * its `args`, or `text`), its finish reason, `usageMetadata` with the tokens and `modelVersion`.
 * The CLI answers a call with a `functionResponse` part in its next request. A request that offers
 * no function declarations is a side request (Gemini CLI's next-speaker check, its loop
 * detection): it gets a short JSON text that says the user speaks next. `:countTokens` gets a count.
 */
export function geminiGenerateContent(s: Script): Answer {
  return (_req, res, arrived) => {
    const m = /\/models\/([^/:?]+):(streamGenerateContent|generateContent|countTokens)/.exec(arrived.path);
    if (!m) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { code: 404, message: `no such method: ${arrived.path}`, status: 'NOT_FOUND' } }));
      return;
    }
    const [, requested, method] = m as unknown as [string, string, string];
    if (method === 'countTokens') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
      return;
    }
    const body = parse(arrived);
    const contents = Array.isArray(body.contents) ? (body.contents as GeminiContent[]) : [];
    const main = geminiTools({ body, text: '', turn: 0 }).length > 0;
    const turn: Turn = main
      ? pick(s, body, arrived.body, contents.filter((c) => c.role === 'model').length)
      : { text: JSON.stringify({ reasoning: 'The task is done.', next_speaker: 'user' }) };
    if ('status' in turn) return failWith(res, turn);
    const modelVersion = s.model ?? decodeURIComponent(requested);
    const usage = main ? (s.usage ?? { input: 1000, output: 50 }) : { input: 5, output: 1 };
    const usageMetadata = { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output };
    const responseId = `resp_${arrived.connection}_${s.seen.length}`;
    const part = 'tool' in turn ? { functionCall: { name: turn.tool, args: turn.input } } : { text: 'stall' in turn ? '' : turn.text };
    const answer = (parts: Array<Record<string, unknown>>, finished: boolean) => ({
      candidates: [{ content: { role: 'model', parts }, index: 0, ...(finished ? { finishReason: 'STOP' } : {}) }],
      ...(finished ? { usageMetadata } : {}),
      modelVersion,
      responseId,
    });
    if (method === 'generateContent') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer([part], true)));
      return;
    }
    const send = sse(res);
    if ('stall' in turn) {
      // The stream's first chunk, a word of text, and nothing after it.
      send(undefined, answer([{ text: 'Let me' }], false));
      return;
    }
    if ('text' in turn) {
      // Text in two chunks, the usage with the last, as the API streams it.
      const half = Math.floor(turn.text.length / 2);
      send(undefined, answer([{ text: turn.text.slice(0, half) }], false));
      send(undefined, answer([{ text: turn.text.slice(half) }], true));
    } else {
      send(undefined, answer([part], true));
    }
    res.end();
  };
}

/** The directory Gemini CLI works in: the first of the workspace directories its first message lists. */
export function geminiWorkingDirectory(request: SeenRequest): string {
  const m = /Workspace Directories:\*\*(?:\\n|\s)+- (\/[^\s"\\]+)/.exec(request.text);
  if (!m) throw new Error(`no workspace directory in Gemini CLI's request: ${request.text.slice(0, 400)}`);
  return m[1]!;
}

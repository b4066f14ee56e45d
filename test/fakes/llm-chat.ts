/**
 * Fake OpenAI-compatible Chat Completions `POST /chat/completions`: answers
 * `{id, object: "chat.completion", created, model, choices: [{index, message: {role, content},
 * finish_reason}], usage}` where `content` is the JSON the `respond` callback builds from the
 * request's messages; errors are `{error: {message, type, code}}`.
 */
import { startFakeServer, type FakeOptions, type FakeServer } from './claim-fake-server.js';

export interface ChatRequest {
  model: string;
  messages: { role: string; content: string }[];
  response_format?: { type: string };
}

export function startLlmChatFake(respond: (req: ChatRequest) => string, opts: FakeOptions = {}): Promise<FakeServer> {
  return startFakeServer((req, mode) => {
    if (mode === 'error' || req.url.pathname !== '/v1/chat/completions' || req.method !== 'POST') {
      return { status: 500, body: { error: { message: 'The server had an error while processing your request.', type: 'server_error', code: null } } };
    }
    const body = JSON.parse(req.body) as ChatRequest;
    return {
      status: 200,
      body: {
        id: 'chatcmpl-fake',
        object: 'chat.completion',
        created: 1_700_000_000,
        model: body.model,
        choices: [{ index: 0, message: { role: 'assistant', content: mode === 'empty' ? '' : respond(body) }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 },
      },
    };
  }, opts);
}

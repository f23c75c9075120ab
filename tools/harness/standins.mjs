// Loopback stand-ins for the three vendors' APIs, enough for the real harness command lines to run
// a headless session against them with a dummy key and write their real session files: Anthropic's
// Messages API (streamed), OpenAI's Responses API (streamed, as Codex calls it) and the Gemini API
// (streamGenerateContent). Each records every request body it was sent, so a test can see what the
// harness handed the model (the rules a hook injected, for one).
import http from 'node:http';

function listen(handler) {
  return new Promise((resolve) => {
    const requests = [];
    const srv = http.createServer((req, res) => {
      let body = '';
      req.on('data', (d) => { body += d; });
      req.on('end', () => {
        requests.push({ url: req.url, body });
        handler(req, res, body, requests);
      });
    });
    srv.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${srv.address().port}`, requests, close: () => new Promise((r) => srv.close(r)) });
    });
  });
}

// messageStream writes one assistant message as the Messages API streams it: text blocks and
// tool_use blocks.
function messageStream(res, model, content) {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  ev('message_start', { message: { id: `msg_${Date.now()}`, type: 'message', role: 'assistant', model, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 0 } } });
  content.forEach((c, i) => {
    if (c.type === 'text') {
      ev('content_block_start', { index: i, content_block: { type: 'text', text: '' } });
      ev('content_block_delta', { index: i, delta: { type: 'text_delta', text: c.text } });
    } else {
      ev('content_block_start', { index: i, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
      ev('content_block_delta', { index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
    }
    ev('content_block_stop', { index: i });
  });
  ev('message_delta', { delta: { stop_reason: content[0].type === 'tool_use' ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
  ev('message_stop', {});
  res.end();
}

// anthropicBash answers a session that has the Bash tool by asking for each command in turn (the
// next one once the last one's result is in), then ends with `reply`; a call without the Bash tool
// (Claude Code's own side calls) gets `reply`.
export function anthropicBash(commands, reply = 'Done.') {
  return listen((req, res, body) => {
    if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const call = JSON.parse(body);
    const results = call.messages.flatMap((m) => (Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result') : []));
    const bash = (call.tools || []).some((t) => t.name === 'Bash');
    const n = results.length;
    const content = bash && n < commands.length
      ? [{ type: 'tool_use', id: `toolu_bash_${n}`, name: 'Bash', input: { command: commands[n], description: `command ${n + 1}` } }]
      : [{ type: 'text', text: reply }];
    messageStream(res, call.model, content);
  });
}

// anthropic answers a Messages call. A prompt holding SPAWN gets the Agent tool called once, with
// a prompt holding SUBTASK, which the sub-agent answers; then the session ends with `reply`.
export function anthropic(reply = 'Done.') {
  return listen((req, res, body) => {
    if (!req.url.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ input_tokens: 10 }));
      return;
    }
    const call = JSON.parse(body);
    const all = JSON.stringify(call.messages);
    const last = call.messages[call.messages.length - 1];
    const answered = Array.isArray(last.content) && last.content.some((b) => b.type === 'tool_result');
    let content;
    if (all.includes('SUBTASK') && !all.includes('SPAWN')) content = [{ type: 'text', text: 'The sub-agent looked and found nothing.' }];
    else if (all.includes('SPAWN') && !answered && !all.includes('toolu_spawn')) {
      content = [{ type: 'tool_use', id: 'toolu_spawn', name: 'Agent', input: { description: 'look around', prompt: 'SUBTASK: look around the repository', subagent_type: 'general-purpose' } }];
    } else content = [{ type: 'text', text: reply }];
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    ev('message_start', { message: { id: `msg_${Date.now()}`, type: 'message', role: 'assistant', model: call.model, content: [], stop_reason: null, usage: { input_tokens: 10, output_tokens: 0 } } });
    content.forEach((c, i) => {
      if (c.type === 'text') {
        ev('content_block_start', { index: i, content_block: { type: 'text', text: '' } });
        ev('content_block_delta', { index: i, delta: { type: 'text_delta', text: c.text } });
      } else {
        ev('content_block_start', { index: i, content_block: { type: 'tool_use', id: c.id, name: c.name, input: {} } });
        ev('content_block_delta', { index: i, delta: { type: 'input_json_delta', partial_json: JSON.stringify(c.input) } });
      }
      ev('content_block_stop', { index: i });
    });
    ev('message_delta', { delta: { stop_reason: content[0].type === 'tool_use' ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } });
    ev('message_stop', {});
    res.end();
  });
}

// responses answers a Responses API call with one message.
export function responses(reply = 'Done.') {
  return listen((req, res) => {
    if (!req.url.includes('/responses')) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
      return;
    }
    const id = `resp_${Date.now()}`;
    const item = { type: 'message', id: `msg_${Date.now()}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: reply, annotations: [] }] };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const ev = (type, data) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
    ev('response.created', { response: { id, object: 'response', status: 'in_progress', output: [] } });
    ev('response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress', content: [] } });
    ev('response.output_text.delta', { item_id: item.id, output_index: 0, content_index: 0, delta: reply });
    ev('response.output_item.done', { output_index: 0, item });
    ev('response.completed', { response: { id, object: 'response', status: 'completed', output: [item],
      usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15, input_tokens_details: { cached_tokens: 0 }, output_tokens_details: { reasoning_tokens: 0 } } } });
    res.end();
  });
}

// gemini answers streamGenerateContent (and the small calls the CLI makes beside it).
export function gemini(reply = 'Done.') {
  return listen((req, res) => {
    const chunk = (text) => ({ candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 }, modelVersion: 'gemini-2.5-pro' });
    if (req.url.includes(':streamGenerateContent')) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`data: ${JSON.stringify(chunk(reply))}\n\n`);
      res.end();
    } else if (req.url.includes(':generateContent')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(chunk('{"reasoning":"done","next_speaker":"user"}')));
    } else if (req.url.includes(':countTokens')) {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ totalTokens: 10 }));
    } else {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{}');
    }
  });
}

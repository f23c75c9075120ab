// A RepoPrompt stand-in on the official MCP TypeScript SDK (McpServer and the Streamable HTTP
// server transport): it offers oracle_send (message, new_chat) as a RepoPrompt MCP server would, on
// a loopback port, and prints {"url": ...} on its first line once it listens. Its mode picks what a
// review meets:
//   sse       answers on an event stream, one session per client (the SDK's default)
//   json      answers with JSON bodies (enableJsonResponse)
//   missing   offers chat_send, not oracle_send
//   nomessage offers oracle_send taking prompt, not message
//   iserror   oracle_send answers with isError
//   drop      the connection is dropped when oracle_send is called
//   oversize  oracle_send answers with 9 MiB of text
//   slow      oracle_send answers after 3 s (STANDIN_DELAY_MS, when set, instead)
//   fails     the answer fails the review: FIX FIRST from the ruthless reviewer, BLOCK from the
//             security reviewer
// The answer passes (with the word the brief asks of its role) and says what arrived: the
// message's length and SHA-256 and new_chat, so a test sees the
// request went whole.
import http from 'node:http';
import { createHash, randomUUID } from 'node:crypto';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const mode = process.argv[2] ?? 'sse';

function newServer() {
  const server = new McpServer({ name: 'repoprompt-standin', version: '1.0.0' });
  const name = mode === 'missing' ? 'chat_send' : 'oracle_send';
  const input = mode === 'nomessage'
    ? { prompt: z.string() }
    : { message: z.string().describe('The message to send'), new_chat: z.boolean().optional().describe('Start a new chat') };
  server.registerTool(name, { description: 'Send a message to the oracle chat', inputSchema: input }, async (args) => {
    if (mode === 'iserror') {
      return { isError: true, content: [{ type: 'text', text: 'No workspace is open in RepoPrompt' }] };
    }
    if (mode === 'oversize') {
      return { content: [{ type: 'text', text: 'x'.repeat(9 << 20) }] };
    }
    if (mode === 'slow') {
      await new Promise((r) => setTimeout(r, Number(process.env.STANDIN_DELAY_MS ?? 3000)));
    }
    const message = args.message ?? '';
    const sha = createHash('sha256').update(message, 'utf8').digest('hex');
    // A review abcd's loop sends opens with its role's heading: the answer is that role's passing
    // word (its failing one in mode fails); a bare message gets SHIP.
    const security = /^# security-reviewer:/m.test(message);
    let word = security ? 'APPROVE' : 'SHIP';
    if (mode === 'fails') word = security ? 'BLOCK' : 'FIX FIRST';
    return {
      content: [{
        type: 'text',
        text: `## Verdict\n\n${word}\n\nreceived ${Buffer.byteLength(message, 'utf8')} bytes sha256 ${sha} new_chat ${args.new_chat === true}\n`,
      }],
    };
  });
  return server;
}

const sessions = new Map();

const httpServer = http.createServer(async (req, res) => {
  try {
    let body;
    if (req.method === 'POST') {
      const chunks = [];
      for await (const c of req) chunks.push(c);
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      if (mode === 'drop' && body?.method === 'tools/call') {
        req.socket.destroy();
        return;
      }
    }
    const sid = req.headers['mcp-session-id'];
    let transport = sid ? sessions.get(sid) : undefined;
    if (!transport) {
      if (req.method !== 'POST' || body?.method !== 'initialize') {
        res.writeHead(sid ? 404 : 400, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'No valid session' }, id: null }));
        return;
      }
      transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: mode === 'json',
        onsessioninitialized: (id) => sessions.set(id, transport),
      });
      transport.onclose = () => { if (transport.sessionId) sessions.delete(transport.sessionId); };
      await newServer().connect(transport);
    }
    await transport.handleRequest(req, res, body);
  } catch (err) {
    if (!res.headersSent) {
      res.writeHead(500, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: String(err) }, id: null }));
    }
  }
});

httpServer.listen(0, '127.0.0.1', () => {
  const { port } = httpServer.address();
  process.stdout.write(JSON.stringify({ url: `http://127.0.0.1:${port}/mcp`, mode }) + '\n');
});
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(0));

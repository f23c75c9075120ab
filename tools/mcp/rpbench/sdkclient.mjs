// The official MCP TypeScript SDK client running the same session as abcd's RepoPrompt client, for
// tools/mcp/rpbench: connect (initialize, notifications/initialized), listTools, callTool on
// oracle_send with the request read from stdin, terminateSession (DELETE), close. It prints each
// session's milliseconds as a JSON array.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const [url, count] = process.argv.slice(2);
let request = '';
for await (const chunk of process.stdin) request += chunk;

const times = [];
for (let i = 0; i < Number(count); i++) {
  const start = performance.now();
  const client = new Client({ name: 'bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  const { tools } = await client.listTools();
  if (!tools.some((t) => t.name === 'oracle_send')) throw new Error('no oracle_send');
  const res = await client.callTool({ name: 'oracle_send', arguments: { message: request, new_chat: true } });
  if (!res.content?.[0]?.text?.includes('SHIP')) throw new Error('no answer');
  await transport.terminateSession();
  await client.close();
  times.push(performance.now() - start);
}
process.stdout.write(JSON.stringify(times));

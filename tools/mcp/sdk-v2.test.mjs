// The official MCP TypeScript SDK v2 client (@modelcontextprotocol/client), pinned to protocol
// revision 2026-07-28 (no handshake; every request carries _meta), against the built binary over
// stdio and over Streamable HTTP: it lists every tool and calls each read-only tool, validating
// every structuredContent against the tool's outputSchema itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { bin, makeWorld, refusalOf, samplesFor, serveHTTP, verbs } from './lib.mjs';

const PIN = '2026-07-28';

function pinnedClient(name) {
  return new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: { pin: PIN } } });
}

async function exercise(client) {
  assert.equal(client.getProtocolEra(), 'modern', 'the connection is the 2026-07-28 era');
  assert.equal(client.getNegotiatedProtocolVersion(), PIN);
  const discover = client.getDiscoverResult();
  assert.ok(discover, 'server/discover answered');
  assert.ok(discover.supportedVersions.includes(PIN));
  assert.equal(client.getServerVersion().name, 'abcd', 'serverInfo arrives in result _meta');
  assert.ok(client.getServerCapabilities().tools);

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), verbs, 'one tool per verb, in name order');

  let calls = 0;
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object');
    assert.ok(tool.outputSchema, `${tool.name} declares an outputSchema`);
    // The client's own compiler for outputSchemas accepts each one and rejects a wrong document,
    // so the validation callTool applies below is real.
    const compiled = client._compileOutputValidator(tool);
    assert.ok(compiled.ok, `${tool.name}: the client compiled the outputSchema`);
    assert.equal(compiled.validator({ not_a_field: true }).valid, false, `${tool.name}: the client's validator rejects a wrong document`);
    if (!tool.annotations?.readOnlyHint) continue;

    let results = 0;
    for (const args of samplesFor(tool)) {
      const res = await client.callTool({ name: tool.name, arguments: args });
      calls++;
      if (res.isError) {
        assert.equal(res.structuredContent, undefined);
        assert.ok(refusalOf(res).remedy.length > 0);
        continue;
      }
      results++;
      assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent, 'the text block is the same JSON');
    }
    assert.ok(results > 0, `read tool ${tool.name} returned a result for at least one sample`);
  }
  assert.ok(calls > 0);
  const bad = await client.callTool({ name: 'schema_show', arguments: { name: 42 } });
  assert.equal(bad.isError, true);
  assert.equal(refusalOf(bad).code, 'input_invalid');
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }));
}

test(`SDK v2 client pinned to ${PIN} over stdio: every tool listed, every read tool called and validated`, async () => {
  const world = makeWorld();
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', 'serve'], cwd: world.repo, env: world.env, stderr: 'pipe' });
  const client = pinnedClient('abcd-interop-v2');
  try {
    await client.connect(transport);
    await exercise(client);
  } finally {
    await client.close();
    world.cleanup();
  }
});

test(`SDK v2 client pinned to ${PIN} over Streamable HTTP: no session, every tool listed, every read tool called`, async () => {
  const world = makeWorld();
  const server = await serveHTTP(world);
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const client = pinnedClient('abcd-interop-v2-http');
  try {
    await client.connect(transport);
    assert.equal(transport.sessionId, undefined, 'the 2026-07-28 era has no session');
    await exercise(client);
  } finally {
    await client.close();
    await server.stop();
    world.cleanup();
  }
});

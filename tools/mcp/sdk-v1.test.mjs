// The official MCP TypeScript SDK v1 client (@modelcontextprotocol/sdk), handshake era, against
// the built binary over stdio and over Streamable HTTP: it lists every tool and calls each read-only
// tool, validating every structuredContent against the tool's outputSchema itself.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { bin, makeWorld, refusalOf, samplesFor, serveHTTP, verbs } from './lib.mjs';

async function exercise(client) {
  const server = client.getServerVersion();
  assert.equal(server.name, 'abcd');
  assert.ok(client.getServerCapabilities().tools, 'the tools capability is declared');
  assert.ok(client.getInstructions().length > 0);

  const { tools } = await client.listTools();
  assert.deepEqual(tools.map((t) => t.name), verbs, 'one tool per verb, in name order');
  const again = await client.listTools();
  assert.deepEqual(again.tools, tools, 'tools/list is deterministic');

  let calls = 0;
  for (const tool of tools) {
    assert.equal(tool.inputSchema.type, 'object', `${tool.name}: inputSchema is type object at the root`);
    assert.ok(tool.outputSchema, `${tool.name} declares an outputSchema`);
    for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']) {
      assert.equal(typeof tool.annotations?.[hint], 'boolean', `${tool.name}: ${hint} is explicit`);
    }
    // The client compiled the outputSchema and would reject a document that breaks it: the
    // validation below is the client's own, and it is not a no-op.
    const validator = client.getToolOutputValidator(tool.name);
    assert.ok(validator, `the client holds a validator for ${tool.name}`);
    assert.equal(validator({ not_a_field: true }).valid, false, `${tool.name}: the client's validator rejects a wrong document`);
    if (!tool.annotations.readOnlyHint) continue;

    let results = 0;
    for (const args of samplesFor(tool)) {
      // callTool validates structuredContent against the outputSchema and throws when it does not match.
      const res = await client.callTool({ name: tool.name, arguments: args });
      calls++;
      assert.equal(res.content.length, 1);
      assert.equal(res.content[0].type, 'text');
      if (res.isError) {
        assert.equal(res.structuredContent, undefined);
        const doc = refusalOf(res);
        assert.ok(doc.remedy.length > 0, `${tool.name}: a refusal names its remedy`);
        continue;
      }
      results++;
      assert.deepEqual(JSON.parse(res.content[0].text), res.structuredContent, 'the text block is the same JSON');
    }
    assert.ok(results > 0, `read tool ${tool.name} returned a result for at least one sample`);
  }
  assert.ok(calls >= tools.filter((t) => t.annotations.readOnlyHint).length);

  // Input that breaks the schema is a tool error the model can read, not a protocol error.
  const bad = await client.callTool({ name: 'schema_show', arguments: { name: 'refusal', extra: 1 } });
  assert.equal(bad.isError, true);
  assert.equal(refusalOf(bad).code, 'input_invalid');
  // An unknown tool is a protocol error.
  await assert.rejects(client.callTool({ name: 'no_such_tool', arguments: {} }), /-32602|Unknown tool/);
}

test('SDK v1 client over stdio: every tool listed, every read tool called and validated', async () => {
  const world = makeWorld();
  const transport = new StdioClientTransport({ command: bin, args: ['mcp', 'serve'], cwd: world.repo, env: world.env, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (d) => { stderr += d; });
  const client = new Client({ name: 'abcd-interop-v1', version: '1.0.0' });
  try {
    await client.connect(transport);
    await exercise(client);
  } finally {
    await client.close();
    world.cleanup();
  }
  assert.match(stderr, /serving \d+ tools over stdio/, 'diagnostics go to stderr');
});

test('SDK v1 client over Streamable HTTP: a session, every tool listed, every read tool called', async () => {
  const world = makeWorld();
  const server = await serveHTTP(world);
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  const client = new Client({ name: 'abcd-interop-v1-http', version: '1.0.0' });
  try {
    await client.connect(transport);
    assert.ok(transport.sessionId, 'the handshake opened a session');
    await exercise(client);
    await transport.terminateSession();
  } finally {
    await client.close();
    const { stdout } = await server.stop();
    world.cleanup();
    assert.equal(stdout, '', 'with --http, stdout stays empty');
  }
});

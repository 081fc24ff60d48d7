// An MCP client of the official TypeScript SDK talks to `lunad mcp` over
// stdio, or over streamable HTTP, as an AI tool would: it creates an
// artifact, subscribes to it, edits it, fails an edit, and undoes the edit.
//
//   node client.mjs LUNAD_BINARY WORKSPACE_DIR [stdio|http]
//
// (or LUNAD_BIN and LUNAD_DIR in the environment). The server inherits this
// process's environment. Over HTTP the client starts `lunad mcp --http
// 127.0.0.1:0`, reads the token it prints on stdout and the URL it logs on
// stderr, checks that a connection without the token is refused with 401,
// and connects sending "Authorization: Bearer TOKEN". On success one JSON line on stdout summarises what
// was written (ids, versions and commits) for mcp_client_test.go; on
// failure the exit status is 1 and stderr says what went wrong.

import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import {
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';

const bin = process.argv[2] ?? process.env.LUNAD_BIN;
const dir = process.argv[3] ?? process.env.LUNAD_DIR;
const mode = process.argv[4] ?? 'stdio';
if (!bin || !dir) {
  console.error('usage: node client.mjs LUNAD_BINARY WORKSPACE_DIR');
  process.exit(2);
}

// How long to wait for a notification before failing: a guard, not a delay.
const NOTIFICATION_TIMEOUT_MS = 10_000;

const original = '# Plan\n\n- gather requirements\n- write the design\n- ship it\n';
const edited = '# Plan\n\n- gather requirements\n- write the design\n- review the design\n- ship it\n';

// notices records every resource notification in arrival order; waiters
// are woken on each.
const notices = [];
const waiters = new Set();

function record(method, params) {
  notices.push({ method, uri: params?.uri });
  for (const wake of waiters) wake();
}

// waitFor resolves with the first notice at index >= from that has method
// (and uri, if given), failing after NOTIFICATION_TIMEOUT_MS.
function waitFor(method, from, uri) {
  const find = () => notices.slice(from).find(n => n.method === method && (uri === undefined || n.uri === uri));
  return new Promise((resolve, reject) => {
    const check = () => {
      const n = find();
      if (n) {
        waiters.delete(check);
        clearTimeout(timer);
        resolve(n);
      }
    };
    const timer = setTimeout(() => {
      waiters.delete(check);
      reject(new Error(`no ${method}${uri ? ` for ${uri}` : ''} within ${NOTIFICATION_TIMEOUT_MS} ms; notifications received: ${JSON.stringify(notices)}`));
    }, NOTIFICATION_TIMEOUT_MS);
    waiters.add(check);
    check();
  });
}

// step names what the scenario is doing, for the failure message.
let step = 'connect';

// text is the text of a tool result's content.
const text = res => res.content.filter(c => c.type === 'text').map(c => c.text).join('\n');

// call calls a tool that must succeed and returns its structured content.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  assert.ok(!res.isError, `${name} failed: ${text(res)}`);
  assert.ok(res.structuredContent, `${name}: no structuredContent in ${JSON.stringify(res)}`);
  return res.structuredContent;
}

// readResource reads luna://artifacts/{id} and returns its one content.
async function readResource(client, uri) {
  const { contents } = await client.readResource({ uri });
  assert.equal(contents.length, 1, `resources/read ${uri}: ${JSON.stringify(contents)}`);
  assert.equal(contents[0].uri, uri);
  assert.equal(contents[0].mimeType, 'text/markdown');
  return contents[0];
}

// newClient is a client that records resource notifications.
function newClient() {
  const client = new Client({ name: 'e2e-client', version: '1.0.0' });
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, n => record(n.method, n.params));
  client.setNotificationHandler(ResourceListChangedNotificationSchema, n => record(n.method, n.params));
  return client;
}

// How long to wait for `lunad mcp --http` to say where it serves.
const START_TIMEOUT_MS = 30_000;

// serveHTTP starts `lunad mcp --http 127.0.0.1:0` and resolves with the
// process, the token (the first line of its stdout) and the URL (logged on
// stderr, which is passed on).
async function serveHTTP() {
  const server = spawn(bin, ['--dir', dir, 'mcp', '--http', '127.0.0.1:0'], { env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
  // The first line of stream that match maps to a value; stderr's lines
  // are all passed on.
  const first = (stream, match) => new Promise((resolve, reject) => {
    const rl = createInterface({ input: stream });
    rl.on('line', line => {
      if (stream === server.stderr) process.stderr.write(line + '\n');
      const m = match(line);
      if (m) resolve(m);
    });
    rl.on('close', () => reject(new Error('lunad mcp --http exited before it was ready')));
  });
  let timer;
  const timeout = new Promise((_, reject) => { timer = setTimeout(() => reject(new Error(`lunad mcp --http did not start within ${START_TIMEOUT_MS} ms`)), START_TIMEOUT_MS); });
  try {
    const [token, url] = await Promise.race([
      Promise.all([first(server.stdout, l => /^[0-9a-f]{64}$/.test(l) && l), first(server.stderr, l => l.match(/ url=(\S+)/)?.[1])]),
      timeout,
    ]);
    return { server, token, url };
  } catch (err) {
    server.kill();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

async function main() {
  if (mode === 'http') return mainHTTP();
  const client = newClient();
  const transport = new StdioClientTransport({
    command: bin,
    args: ['--dir', dir, 'mcp'],
    env: process.env, // the SDK passes only a few variables unless told
    stderr: 'inherit',
  });
  await client.connect(transport);
  try {
    return await scenario(client);
  } finally {
    await client.close(); // closes the server's stdin: `lunad mcp` exits
  }
}

async function mainHTTP() {
  step = 'start lunad mcp --http';
  const { server, token, url } = await serveHTTP();
  const exited = once(server, 'exit');
  try {
    // Without the token: refused with 401 before any session exists.
    step = 'connect without the token';
    await assert.rejects(newClient().connect(new StreamableHTTPClientTransport(new URL(url))),
      err => /\b401\b/.test(err.message) || err.code === 401, 'a client without the token was served');
    step = 'connect with the token';
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    try {
      return await scenario(client);
    } finally {
      await client.close();
    }
  } finally {
    server.kill('SIGTERM');
    const [code, signal] = await exited;
    assert.equal(code, 0, `lunad mcp --http exited with ${code ?? signal} after SIGTERM`);
  }
}

async function scenario(client) {
  step = 'initialize';
  const caps = client.getServerCapabilities();
  assert.ok(caps?.tools, `server capabilities without tools: ${JSON.stringify(caps)}`);
  assert.ok(caps?.resources?.subscribe && caps.resources.listChanged, `server capabilities without resources.subscribe and listChanged: ${JSON.stringify(caps)}`);

  // 1. The tools, each with an input schema, and the resource templates.
  step = '1. tools/list, resources/templates/list';
  const { tools } = await client.listTools();
  const byName = Object.fromEntries(tools.map(t => [t.name, t]));
  for (const name of ['create_artifact', 'read_artifact', 'list_artifacts', 'edit_artifact', 'rewrite_artifact', 'undo_edit', 'restore_version', 'artifact_history', 'diff_versions']) {
    assert.ok(byName[name], `tools/list has no ${name}: ${Object.keys(byName).join(' ')}`);
    assert.equal(byName[name].inputSchema?.type, 'object', `${name} input schema: ${JSON.stringify(byName[name].inputSchema)}`);
  }
  const editSchema = byName.edit_artifact.inputSchema;
  assert.ok(editSchema.properties?.changes && editSchema.properties?.base_version, `edit_artifact input schema: ${JSON.stringify(editSchema)}`);
  // Strict schemas: every argument required, the optional ones nullable.
  assert.deepEqual([...editSchema.required].sort(), ['agent', 'base_version', 'changes', 'id', 'idempotency_key', 'message']);
  assert.deepEqual(editSchema.properties.base_version.type, ['integer', 'null']);
  const { resourceTemplates } = await client.listResourceTemplates();
  const templates = resourceTemplates.map(t => t.uriTemplate);
  for (const want of ['luna://artifacts/{id}', 'luna://artifacts/{id}/versions/{n}']) {
    assert.ok(templates.includes(want), `resources/templates/list has no ${want}: ${templates}`);
  }

  // 2. create_artifact: a commit, reported in structuredContent.
  step = '2. create_artifact';
  const beforeCreate = notices.length;
  const created = await call(client, 'create_artifact', {
    title: 'Plan', type: 'text/markdown', path: 'notes/plan.md', content: original,
  });
  assert.ok(created.id, `create_artifact: no id in ${JSON.stringify(created)}`);
  assert.equal(created.path, 'notes/plan.md');
  assert.equal(created.version, 1);
  assert.match(created.commit, /^[0-9a-f]{40}$/);
  const uri = `luna://artifacts/${created.id}`;

  // The new artifact is announced by resources/list_changed, and listed.
  step = '2. notifications/resources/list_changed after create_artifact';
  await waitFor('notifications/resources/list_changed', beforeCreate);
  const { resources } = await client.listResources();
  assert.ok(resources.some(r => r.uri === uri && r.name === 'notes/plan.md'), `resources/list has no ${uri}: ${JSON.stringify(resources)}`);

  // 3. Subscribe to the artifact.
  step = '3. resources/subscribe';
  await client.subscribeResource({ uri });
  // By path, the subscription is refused with the URI to use: updates name
  // the artifact by its ID.
  await assert.rejects(client.subscribeResource({ uri: 'luna://artifacts/notes%2Fplan.md' }),
    err => err.message.includes(`subscribe to ${uri}`), 'a subscription by path was accepted');

  // 4. edit_artifact: one SEARCH/REPLACE change against version 1.
  step = '4. edit_artifact';
  const beforeEdit = notices.length;
  const edit = await call(client, 'edit_artifact', {
    id: created.id,
    changes: [{ search: '- write the design\n', replace: '- write the design\n- review the design\n' }],
    base_version: created.version,
  });
  assert.equal(edit.id, created.id);
  assert.equal(edit.version, 2);
  assert.match(edit.commit, /^[0-9a-f]{40}$/);
  assert.notEqual(edit.commit, created.commit);
  assert.deepEqual(edit.tiers, ['exact']);

  // 5. The subscription says the artifact changed.
  step = '5. notifications/resources/updated after edit_artifact';
  await waitFor('notifications/resources/updated', beforeEdit, uri);

  // 6. The resource and read_artifact both have the new version.
  step = '6. resources/read and read_artifact after edit_artifact';
  const afterEdit = await readResource(client, uri);
  assert.equal(afterEdit.text, edited);
  assert.equal(afterEdit._meta?.version, 2);
  assert.equal(afterEdit._meta?.commit, edit.commit);
  const read = await call(client, 'read_artifact', { id: created.id });
  assert.equal(read.content, edited);
  assert.equal(read.version, 2);
  const v1 = await readResource(client, `${uri}/versions/1`);
  assert.equal(v1.text, original);

  // 7. A SEARCH that does not match (a misspelled line): an error result
  // that says how to correct the call, and nothing written.
  step = '7. edit_artifact with a misspelled SEARCH';
  const failed = await client.callTool({
    name: 'edit_artifact',
    arguments: { id: created.id, changes: [{ search: '- write the desing\n', replace: '- write it\n' }], base_version: edit.version },
  });
  const why = text(failed);
  assert.equal(failed.isError, true, `misspelled SEARCH was applied: ${JSON.stringify(failed)}`);
  assert.match(why, /did you mean line 4\b/, `error does not point at the closest line: ${why}`);
  assert.match(why, /write the design/, `error does not quote the closest line: ${why}`);
  assert.match(why, /nothing was written/, `error does not say nothing was written: ${why}`);
  const unchanged = await call(client, 'read_artifact', { id: created.id });
  assert.equal(unchanged.version, 2);
  assert.equal(unchanged.content, edited);

  // 8. undo_edit: a new commit whose content is the original.
  step = '8. undo_edit';
  const beforeUndo = notices.length;
  const undo = await call(client, 'undo_edit', { id: created.id });
  assert.equal(undo.id, created.id);
  assert.equal(undo.version, 3);
  assert.match(undo.commit, /^[0-9a-f]{40}$/);
  await waitFor('notifications/resources/updated', beforeUndo, uri);
  const afterUndo = await readResource(client, uri);
  assert.equal(afterUndo.text, original);
  assert.equal(afterUndo._meta?.version, 3);
  assert.equal(afterUndo._meta?.commit, undo.commit);

  return {
    id: created.id,
    uri,
    create: { version: created.version, commit: created.commit },
    edit: { version: edit.version, commit: edit.commit, tiers: edit.tiers },
    failedEdit: why,
    undo: { version: undo.version, commit: undo.commit },
    notifications: notices,
  };
}

try {
  const summary = await main();
  process.stdout.write(JSON.stringify(summary) + '\n');
} catch (err) {
  console.error(`mcp client scenario failed at step ${step}: ${err?.stack ?? err}`);
  process.exit(1);
}

// The lunad extension: starts `lunad lsp` over stdio and adds the Luna
// commands to the palette. Everything else — code lenses, diagnostics, hover,
// definition, references, symbols, code actions — comes from the server
// through vscode-languageclient.
//
// The server's own commands (luna.undo, luna.history, luna.references, …),
// which its code lenses and code actions carry, are registered by the client
// from the server's executeCommandProvider; the executeCommand middleware
// below shows their results (a history to pick from, a diff, the dependents).
// The palette entries are lunad.* commands that gather the arguments and send
// the same workspace/executeCommand requests. luna.editFromClipboard, which
// the server's "apply SEARCH/REPLACE from clipboard" code action carries, is
// run here: it reads the clipboard and sends luna.edit. luna.askPrompt, which
// the "ask the agents about this artifact…" code action carries, asks for the
// request and sends luna.ask; the ask's progress, its final message and the
// buffers it changes come from the server.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { execFile } from 'child_process';
import * as vscode from 'vscode';
import {
  CloseAction,
  ErrorHandler,
  ExecuteCommandRequest,
  LanguageClient,
  LanguageClientOptions,
  ServerOptions,
  State,
} from 'vscode-languageclient/node';

/** The languages lunad parses, plus plain text. */
const LANGUAGES = ['markdown', 'go', 'python', 'javascript', 'typescript', 'rust', 'java', 'c', 'plaintext'];

let client: LanguageClient | undefined;
let starting: Promise<LanguageClient> | undefined;
let output: vscode.OutputChannel | undefined;

export function activate(context: vscode.ExtensionContext): void {
  output = vscode.window.createOutputChannel('lunad');
  context.subscriptions.push(output);

  const palette: Array<[string, () => Promise<void>]> = [
    ['lunad.undo', () => simple('luna.undo')],
    ['lunad.redo', () => simple('luna.redo')],
    ['lunad.restore', restore],
    ['lunad.history', history],
    ['lunad.diff', diff],
    ['lunad.ack', ack],
    ['lunad.link', link],
    ['lunad.createArtifact', createArtifact],
    ['lunad.edit', edit],
    ['lunad.branch', branch],
    ['lunad.switch', switchBranch],
    ['lunad.ask', () => ask(activeTargetIfAny())],
  ];
  for (const [id, run] of palette) {
    context.subscriptions.push(vscode.commands.registerCommand(id, guarded(run)));
  }
  context.subscriptions.push(
    vscode.commands.registerCommand('lunad.restartServer', guarded(restart)),
    vscode.commands.registerCommand('lunad.showOutput', () => output?.show(true)),
    vscode.commands.registerCommand('luna.editFromClipboard', (uri?: unknown) =>
      guarded(() => editFromClipboard(typeof uri === 'string' && uri !== '' ? uri : activeTarget()))(),
    ),
    vscode.commands.registerCommand('luna.askPrompt', (uri?: unknown) =>
      guarded(() => ask(typeof uri === 'string' && uri !== '' ? uri : activeTargetIfAny()))(),
    ),
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('lunad.path')) {
        void restart().catch(showError);
      }
    }),
  );

  // Activation comes with any Markdown, Go, … file: the server starts by
  // itself only in a lunad workspace, or when `lunad init` makes one. A
  // palette command starts it anywhere (and says why it cannot).
  if (inWorkspace()) {
    void start().catch(showError);
  } else {
    output.appendLine('[lunad] no .luna/workspace.json in the first workspace folder or above it: not starting `lunad lsp` (run `lunad init`, or Luna: Restart Language Server).');
    const watcher = vscode.workspace.createFileSystemWatcher('**/.luna/workspace.json', false, true, true);
    context.subscriptions.push(
      watcher,
      watcher.onDidCreate(() => {
        if (!client && !starting && inWorkspace()) {
          void start().catch(showError);
        }
      }),
    );
  }
}

/** Whether the first workspace folder is in a lunad workspace: .luna/workspace.json in it or above it. */
function inWorkspace(): boolean {
  let dir = workspaceDir();
  while (dir) {
    if (fs.existsSync(path.join(dir, '.luna', 'workspace.json'))) {
      return true;
    }
    const up = path.dirname(dir);
    if (up === dir) {
      break;
    }
    dir = up;
  }
  return false;
}

export async function deactivate(): Promise<void> {
  await stop();
}

// ---- the language client ---------------------------------------------------

/** The first workspace folder: the server's working directory. */
function workspaceDir(): string | undefined {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
}

/**
 * lunad.path as an executable: `~/…` is expanded, and a relative path with a
 * directory in it (`bin/lunad`) is taken from the first workspace folder; a
 * bare name is looked up on PATH.
 */
function serverPath(): string {
  let p = vscode.workspace.getConfiguration('lunad').get<string>('path', 'lunad').trim() || 'lunad';
  if (p === '~' || p.startsWith('~/')) {
    p = path.join(os.homedir(), p.slice(1));
  }
  const dir = workspaceDir();
  if (!path.isAbsolute(p) && p.includes('/') && dir) {
    p = path.join(dir, p);
  }
  return p;
}

function start(): Promise<LanguageClient> {
  if (!starting) {
    starting = launch().catch((err) => {
      starting = undefined;
      throw err;
    });
  }
  return starting;
}

async function launch(): Promise<LanguageClient> {
  const command = serverPath();
  // stdio: an Executable without `transport` talks over stdin/stdout
  // (TransportKind.stdio would append a --stdio flag that `lunad lsp` has not).
  const serverOptions: ServerOptions = {
    command,
    args: ['lsp'],
    options: { cwd: workspaceDir() },
  };
  // The client's default handler restarts a server that exits, also one that
  // refused to initialize (not a workspace, a bad config): restarts are for
  // a server that ran.
  let running = false;
  let fallback: ErrorHandler | undefined;
  const errorHandler: ErrorHandler = {
    error: (err, msg, count) => fallback!.error(err, msg, count),
    closed: () => (running ? fallback!.closed() : { action: CloseAction.DoNotRestart, handled: true }),
  };
  const clientOptions: LanguageClientOptions = {
    errorHandler,
    documentSelector: LANGUAGES.map((language) => ({ scheme: 'file', language })),
    outputChannel: output,
    traceOutputChannel: output,
    // Reported below, once, instead of the client's own notification.
    initializationFailedHandler: (err) => {
      output?.appendLine(`[lunad] initialize failed: ${message(err)}`);
      return false;
    },
    middleware: {
      // Code lenses and code actions run the server's commands through the
      // client; show what they return.
      executeCommand: async (command, args) => {
        try {
          await report(command, args, await execute(command, args));
        } catch (err) {
          showError(err);
        }
        return undefined;
      },
    },
  };
  // The id "lunad" makes the client read the lunad.trace.server setting.
  const c = new LanguageClient('lunad', 'lunad', serverOptions, clientOptions);
  fallback = c.createDefaultErrorHandler();
  client = c;
  try {
    await c.start();
    running = true;
  } catch (err) {
    client = undefined;
    await c.dispose().catch(() => undefined);
    if (/not a lunad workspace/.test(message(err))) {
      void vscode.window.showWarningMessage(message(err));
      throw new Handled();
    }
    const choice = await vscode.window.showErrorMessage(
      `lunad: could not start \`${command} lsp\`: ${message(err)}`,
      'Open Settings',
      'Show Output',
    );
    if (choice === 'Open Settings') {
      void vscode.commands.executeCommand('workbench.action.openSettings', 'lunad.path');
    } else if (choice === 'Show Output') {
      output?.show(true);
    }
    throw new Handled();
  }
  return c;
}

async function stop(): Promise<void> {
  const c = client;
  client = undefined;
  starting = undefined;
  if (c && c.state !== State.Stopped) {
    await c.stop(2000).catch(() => undefined);
  }
  await c?.dispose().catch(() => undefined);
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

/** Sends workspace/executeCommand to the server and returns its result. */
async function execute(command: string, args: unknown[]): Promise<unknown> {
  const c = client && client.state === State.Running ? client : await start();
  return vscode.window.withProgress(
    { location: vscode.ProgressLocation.Window, title: `lunad: ${command}` },
    () => c.sendRequest(ExecuteCommandRequest.type, { command, arguments: args }),
  );
}

// ---- arguments -------------------------------------------------------------

/** Thrown after the user was already told (or cancelled): nothing more to show. */
class Handled extends Error {}

function guarded(run: () => Promise<void>): () => Promise<void> {
  return async () => {
    try {
      await run();
    } catch (err) {
      showError(err);
    }
  };
}

function showError(err: unknown): void {
  if (err instanceof Handled) {
    return;
  }
  void vscode.window.showErrorMessage(`lunad: ${message(err)}`);
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** The active editor's document, which must be a file on disk. */
function activeFile(): vscode.TextEditor {
  const ed = vscode.window.activeTextEditor;
  if (!ed) {
    void vscode.window.showWarningMessage('lunad: open an artifact in an editor first.');
    throw new Handled();
  }
  if (ed.document.uri.scheme !== 'file') {
    void vscode.window.showWarningMessage('lunad: save the file inside the workspace first.');
    throw new Handled();
  }
  return ed;
}

/** The active document's URI as the server knows it: the first argument of every per-artifact command. */
function activeTarget(): string {
  const uri = activeFile().document.uri;
  return client ? client.code2ProtocolConverter.asUri(uri) : uri.toString();
}

/** Cancelling any prompt ends the command quietly. */
function given<T>(value: T | undefined): T {
  if (value === undefined) {
    throw new Handled();
  }
  return value;
}

function validVersion(s: string): string | undefined {
  return /^[1-9][0-9]*$/.test(s.trim()) ? undefined : 'A version number: 1, 2, 3, …';
}

async function askVersion(prompt: string, allowEmpty: boolean): Promise<number | undefined> {
  const s = given(
    await vscode.window.showInputBox({
      prompt,
      placeHolder: allowEmpty ? 'empty: the previous version' : 'e.g. 3',
      validateInput: (v) => (allowEmpty && v.trim() === '' ? undefined : validVersion(v)),
    }),
  ).trim();
  return s === '' ? undefined : Number(s);
}

// ---- the palette commands --------------------------------------------------

/** luna.undo / luna.redo: [target]. */
async function simple(command: string): Promise<void> {
  await run(command, [activeTarget()]);
}

/** luna.restore: [target, version]; the version is picked from the history when the server lists it. */
async function restore(): Promise<void> {
  const target = activeTarget();
  let version: number | undefined;
  // Every version but the current one, whose state the artifact already has.
  const versions = asVersions(await execute('luna.history', [target]).catch(() => undefined)).slice(1);
  if (versions.length > 0) {
    const pick = given(await vscode.window.showQuickPick(versions.map(versionItem), { placeHolder: 'Version to restore' }));
    version = pick.version.version;
  } else {
    version = given(await askVersion('Version to restore', false));
  }
  await run('luna.restore', [target, version]);
}

/** luna.history: [target]. */
async function history(): Promise<void> {
  await run('luna.history', [activeTarget()]);
}

/** Sends a command and shows its result. */
async function run(command: string, args: unknown[]): Promise<void> {
  await report(command, args, await execute(command, args));
}

/** Lists the versions of a luna.history result; the one picked can be diffed or restored. */
async function pickVersion(target: string, versions: Version[]): Promise<void> {
  const pick = given(await vscode.window.showQuickPick(versions.map(versionItem), { placeHolder: 'History (newest first)', matchOnDescription: true, matchOnDetail: true }));
  const v = pick.version.version;
  const current = versions[0].version;
  const actions = [
    { label: 'Show what this version changed', command: 'luna.diff', args: [target, v - 1, v], when: v > 1 },
    { label: 'Diff this version against the current one', command: 'luna.diff', args: [target, v, current], when: v < current },
    { label: `Restore version ${v}`, command: 'luna.restore', args: [target, v], when: v < current },
  ].filter((a) => a.when);
  if (actions.length === 0) {
    return;
  }
  const action = given(await vscode.window.showQuickPick(actions, { placeHolder: `v${v}` }));
  await run(action.command, action.args);
}

/** luna.diff: [target] (the last change) or [target, from] (from → current). */
async function diff(): Promise<void> {
  const target = activeTarget();
  const from = await askVersion('Show changes since version', true);
  await run('luna.diff', from === undefined ? [target] : [target, from]);
}

/** luna.ack: [target] (all references) or [target, symbol]; the word at the cursor is offered. */
async function ack(): Promise<void> {
  const ed = activeFile();
  const target = activeTarget();
  const range = ed.document.getWordRangeAtPosition(ed.selection.active, /[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*/);
  const word = ed.selection.isEmpty ? (range ? ed.document.getText(range) : '') : ed.document.getText(ed.selection).trim();
  const symbol = given(
    await vscode.window.showInputBox({
      prompt: 'Acknowledge the references to this symbol (name or Container.name) as still right',
      placeHolder: 'empty: every reference of this artifact',
      value: word.includes('\n') ? '' : word,
    }),
  ).trim();
  await run('luna.ack', symbol === '' ? [target] : [target, symbol]);
}

/** luna.link: [target, destination, kind]. */
async function link(): Promise<void> {
  const target = activeTarget();
  const dst = given(
    await vscode.window.showInputBox({
      prompt: 'Link this artifact to (an artifact ID or a path in the workspace)',
      placeHolder: 'e.g. k3v9q2mz or src/config.py',
      validateInput: (v) => (v.trim() === '' ? 'An artifact ID or a path' : undefined),
    }),
  ).trim();
  const kind = given(
    await vscode.window.showInputBox({
      prompt: 'Kind of link',
      value: 'references',
      validateInput: (v) => (/^[a-z][a-z0-9_-]*$/.test(v.trim()) ? undefined : 'A lowercase word, e.g. depends_on'),
    }),
  ).trim();
  await run('luna.link', [target, dst, kind]);
}

/**
 * luna.createArtifact: [{title, path, content}] — a new artifact, then opened.
 * An empty path lets lunad derive one from the title. From an untitled
 * editor, its text is the content (the buffer is then closed unsaved), so
 * a draft becomes an artifact in one step. lunad refuses a path where an
 * untracked file already is.
 */
async function createArtifact(): Promise<void> {
  const ed = vscode.window.activeTextEditor;
  const draft = ed && ed.document.uri.scheme === 'untitled' ? ed.document : undefined;
  const firstLine = draft?.lineAt(0).text.replace(/^#+\s*/, '').trim() ?? '';
  const title = given(
    await vscode.window.showInputBox({
      prompt: 'Title of the new artifact (one line)',
      value: firstLine,
      validateInput: (v) => (v.trim() === '' ? 'A non-empty line' : undefined),
    }),
  ).trim();
  const p = given(
    await vscode.window.showInputBox({
      prompt: 'Path in the workspace',
      placeHolder: 'empty: derived from the title (Design notes → design-notes.md)',
    }),
  ).trim();
  const spec: Record<string, string> = { title };
  if (p !== '') {
    spec.path = p;
  }
  if (draft) {
    spec.content = draft.getText();
  }
  const result = await execute('luna.createArtifact', [spec]);
  await report('luna.createArtifact', [spec], result);
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  const created = isObject(result) && isObject(result.artifact) && typeof result.artifact.path === 'string' ? result.artifact.path : '';
  if (root && created !== '') {
    if (draft) {
      await vscode.window.showTextDocument(draft);
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor');
    }
    await vscode.window.showTextDocument(vscode.Uri.joinPath(root, ...created.split('/')));
  }
}

/** The active document's URI if an editor shows a file, else '' (an ask needs no active artifact). */
function activeTargetIfAny(): string {
  const ed = vscode.window.activeTextEditor;
  if (!ed || ed.document.uri.scheme !== 'file') {
    return '';
  }
  return client ? client.code2ProtocolConverter.asUri(ed.document.uri) : ed.document.uri.toString();
}

/**
 * luna.ask: [{request, artifact?, dryRun?}] — asks lunad's agents, with the
 * active artifact as the one the request is about. The server answers with
 * the run at once, reports it as progress and ends with a message saying what
 * was done or the question asked back; changed artifacts update their open
 * editors.
 */
async function ask(target: string): Promise<void> {
  const request = given(
    await vscode.window.showInputBox({
      prompt: target === '' ? 'Ask lunad\'s agents' : 'Ask lunad\'s agents about this artifact',
      placeHolder: 'e.g. rename parse_config to load_config; change the second paragraph to mention JSON',
      validateInput: (v) => (v.trim() === '' ? 'Say what the agents should do' : undefined),
    }),
  ).trim();
  const arg: Record<string, unknown> = { request };
  if (target !== '') {
    arg.artifact = target;
  }
  const result = await execute('luna.ask', [arg]);
  const id = isObject(result) && typeof result.id === 'string' ? result.id : '';
  output?.appendLine(`[lunad] ask ${id}: ${request}`);
}

/** lunad.edit: SEARCH/REPLACE blocks from the clipboard to the active artifact. */
async function edit(): Promise<void> {
  await editFromClipboard(activeTarget());
}

/** luna.edit: [target, blocks] — Aider-style SEARCH/REPLACE blocks taken from the clipboard. */
async function editFromClipboard(target: string): Promise<void> {
  const blocks = await vscode.env.clipboard.readText();
  if (!blocks.includes('<<<<<<< SEARCH')) {
    void vscode.window.showWarningMessage('lunad: the clipboard holds no SEARCH/REPLACE block (<<<<<<< SEARCH … ======= … >>>>>>> REPLACE).');
    throw new Handled();
  }
  await run('luna.edit', [target, blocks]);
}

function validBranch(v: string): string | undefined {
  return v.trim() === '' || /\s/.test(v.trim()) ? 'A branch name without spaces' : undefined;
}

/** luna.branch: [name] — creates a branch at the current commit without switching. */
async function branch(): Promise<void> {
  const name = given(await vscode.window.showInputBox({ prompt: 'New branch name', placeHolder: 'e.g. feature/x', validateInput: validBranch })).trim();
  await run('luna.branch', [name]);
}

/** luna.switch: [name]; the branches are listed with `lunad branches --json` when that works. */
async function switchBranch(): Promise<void> {
  const branches = await listBranches();
  let name: string;
  if (branches.length > 0) {
    const items = branches.map((b) => ({ label: b.name, description: (b.current ? 'current · ' : '') + b.commit.slice(0, 8) }));
    name = given(await vscode.window.showQuickPick(items, { placeHolder: 'Switch to branch' })).label;
  } else {
    name = given(await vscode.window.showInputBox({ prompt: 'Switch to branch', validateInput: validBranch })).trim();
  }
  await run('luna.switch', [name]);
}

interface Branch {
  name: string;
  commit: string;
  current?: boolean;
}

function listBranches(): Promise<Branch[]> {
  return new Promise((resolve) => {
    execFile(serverPath(), ['branches', '--json'], { cwd: workspaceDir(), timeout: 5000 }, (err, stdout) => {
      if (err) {
        resolve([]);
        return;
      }
      try {
        const v: unknown = JSON.parse(stdout);
        resolve(Array.isArray(v) ? v.filter((b): b is Branch => typeof b?.name === 'string' && typeof b?.commit === 'string') : []);
      } catch {
        resolve([]);
      }
    });
  });
}

// ---- results ---------------------------------------------------------------

/** A version as `lunad log --json` prints it (docs/cli.md, "Version"). */
interface Version {
  version: number;
  op?: string;
  agent?: string;
  message?: string;
  time?: string;
  commit?: string;
}

/** The versions in a luna.history result: an array, or an object with a `versions` array. */
function asVersions(result: unknown): Version[] {
  const list = Array.isArray(result) ? result : isObject(result) && Array.isArray(result.versions) ? result.versions : [];
  const versions = list.filter((v): v is Version => isObject(v) && typeof v.version === 'number' && v.version > 0);
  return versions.sort((a, b) => b.version - a.version);
}

function versionItem(v: Version): vscode.QuickPickItem & { version: Version } {
  const who = [v.agent, v.time ? v.time.replace('T', ' ').replace(/Z$/, ' UTC') : undefined].filter(Boolean).join(' · ');
  return { label: `v${v.version}${v.op ? '  ' + v.op : ''}`, description: who, detail: v.message, version: v };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null;
}

/** Shows a command's result: histories and dependents to pick from, diffs in an editor, writes as a message. */
async function report(command: string, args: unknown[], result: unknown): Promise<void> {
  const target = typeof args[0] === 'string' ? args[0] : '';
  switch (command) {
    case 'luna.history': {
      const versions = asVersions(result);
      if (versions.length > 0) {
        await pickVersion(target, versions);
        return;
      }
      break;
    }
    case 'luna.diff':
      if (typeof result === 'string') {
        if (result.trim() === '') {
          void vscode.window.showInformationMessage('lunad: no changes');
        } else {
          await showText(result, 'diff');
        }
        return;
      }
      break;
    case 'luna.references':
      if (isObject(result) && (Array.isArray(result.incoming) || result.incoming === null)) {
        await pickReference(typeof args[1] === 'string' ? args[1] : '', Array.isArray(result.incoming) ? result.incoming : []);
        return;
      }
      break;
  }
  if (result === null || result === undefined || result === '') {
    return;
  }
  if (typeof result === 'string') {
    if (/^(diff |--- |@@ )/m.test(result)) {
      await showText(result, 'diff');
    } else if (result.includes('\n')) {
      await showText(result, 'plaintext');
    } else {
      void vscode.window.showInformationMessage(`lunad: ${result}`);
    }
    return;
  }
  const write = asWrite(result);
  if (write) {
    void vscode.window.showInformationMessage(`lunad: ${write}`);
    return;
  }
  if (isObject(result) && typeof result.name === 'string' && typeof result.commit === 'string') {
    const verb = command === 'luna.switch' ? 'switched to' : 'created branch';
    void vscode.window.showInformationMessage(`lunad: ${verb} ${result.name} at ${result.commit.slice(0, 8)}`);
    return;
  }
  await showText(JSON.stringify(result, null, 2), 'json');
}

/**
 * A write result — {artifact, version, replayed} from the server (edit adds
 * matches), or the CLI's {id, version: N, op} — as one line:
 * "undo: config-notes.md v3 (k3v9q2mz)".
 */
function asWrite(result: unknown): string | undefined {
  if (!isObject(result)) {
    return undefined;
  }
  const replayed = result.replayed === true ? ', replayed: nothing committed' : '';
  const a = result.artifact;
  const v = result.version;
  if (isObject(a) && typeof a.id === 'string' && isObject(v) && typeof v.version === 'number') {
    const op = typeof v.op === 'string' ? v.op : 'write';
    const name = typeof a.path === 'string' ? `${a.path} v${v.version} (${a.id})` : `${a.id} v${v.version}`;
    return `${op}: ${name}${replayed}`;
  }
  if (typeof result.id === 'string' && typeof v === 'number') {
    return `${typeof result.op === 'string' ? result.op : 'write'}: ${result.id} v${v}${replayed}`;
  }
  return undefined;
}

/** A reference as the server reports it (docs/cli.md, "Reference"). */
interface Reference {
  from: { id: string; path: string; span?: { start: { line: number; column: number } } };
  kind?: string;
  text?: string;
  to?: { symbol?: string; container?: string };
  state?: string;
  reason?: string;
}

/** Lists the references to a symbol (a definition's lens); the one picked is opened where it is written. */
async function pickReference(symbol: string, incoming: unknown[]): Promise<void> {
  const refs = incoming.filter((r): r is Reference => isObject(r) && isObject(r.from) && typeof r.from.path === 'string');
  if (refs.length === 0) {
    void vscode.window.showInformationMessage(`lunad: no dependents${symbol ? ' of ' + symbol : ''}`);
    return;
  }
  const items = refs.map((r) => ({
    label: `${r.from.path}${r.from.span ? ':' + (r.from.span.start.line + 1) : ''}`,
    description: [r.state, r.text].filter(Boolean).join(' · '),
    detail: r.reason,
    ref: r,
  }));
  const pick = given(await vscode.window.showQuickPick(items, { placeHolder: `Dependents${symbol ? ' of ' + symbol : ''}`, matchOnDetail: true }));
  const root = vscode.workspace.workspaceFolders?.[0]?.uri;
  if (!root) {
    return;
  }
  const uri = vscode.Uri.joinPath(root, ...pick.ref.from.path.split('/'));
  const start = pick.ref.from.span?.start;
  const pos = new vscode.Position(start?.line ?? 0, start?.column ?? 0); // columns count bytes: exact for ASCII
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(pos, pos) });
}

async function showText(content: string, language: string): Promise<void> {
  const doc = await vscode.workspace.openTextDocument({ content, language });
  await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
}

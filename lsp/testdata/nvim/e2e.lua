-- End-to-end scenario for TestNvim (lsp/nvim_test.go), run by
--   timeout 60 nvim --headless --clean -n -c "luafile e2e.lua"
-- It loads the plugin in editors/nvim, opens guide.md of the workspace the
-- test made, and writes one JSON line per step to $LUNAD_NVIM_OUT:
-- {"step": ..., "ok": true|false, "error": ..., ...}. The first failing
-- step ends the run. The Go side edits config.py in another process when
-- $LUNAD_NVIM_SYNC/ready appears and then writes $LUNAD_NVIM_SYNC/edited
-- (or edit-failed).
--
-- Works on Neovim 0.7 (Debian bookworm) and later: vim.lsp.start_client +
-- buf_attach_client through the plugin, per-client results with `error`
-- (0.7) or `err` (0.10+), no `nvim -l`.

local function getenv(name)
  local v = os.getenv(name)
  assert(v and v ~= "", name .. " is not set")
  return v
end

local out_path = getenv("LUNAD_NVIM_OUT")
local sync_dir = getenv("LUNAD_NVIM_SYNC")
local ws = getenv("LUNAD_NVIM_WS")
local bin = getenv("LUNAD_NVIM_BIN")
local plugin = getenv("LUNAD_NVIM_PLUGIN")

local function emit(step, fields)
  fields = fields or {}
  fields.step = step
  if fields.ok == nil then
    fields.ok = true
  end
  local f = assert(io.open(out_path, "a"))
  f:write(vim.fn.json_encode(fields), "\n")
  f:close()
end

-- failed carries a failing step out of main.
local failed = {}

local function fail(step, msg, fields)
  fields = fields or {}
  fields.ok = false
  fields.error = msg
  emit(step, fields)
  error(failed)
end

local function exists(path)
  return vim.loop.fs_stat(path) ~= nil
end

local function read(path)
  local f = io.open(path, "r")
  if not f then
    return nil
  end
  local s = f:read("*a")
  f:close()
  return s
end

-- What the server sent, recorded by wrapping the default handlers.
local raw_diags = {} -- uri -> the last published diagnostics
local applied = {} -- workspace/applyEdit labels, in order
local messages = {} -- window/showMessage texts
local progress = {} -- $/progress values by token, in order
do
  local h = vim.lsp.handlers
  local prog = h["$/progress"]
  h["$/progress"] = function(err, result, ctx, config)
    if result and type(result.token) == "string" then
      progress[result.token] = progress[result.token] or {}
      table.insert(progress[result.token], result.value)
    end
    if prog then
      return prog(err, result, ctx, config)
    end
  end
  local publish = h["textDocument/publishDiagnostics"]
  h["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
    if result then
      raw_diags[result.uri] = result.diagnostics
    end
    return publish(err, result, ctx, config)
  end
  local apply = h["workspace/applyEdit"]
  h["workspace/applyEdit"] = function(err, result, ctx, config)
    table.insert(applied, result and result.label or "")
    return apply(err, result, ctx, config)
  end
  local show = h["window/showMessage"]
  h["window/showMessage"] = function(err, result, ctx, config)
    if result then
      table.insert(messages, result.message)
    end
    return show(err, result, ctx, config)
  end
end

-- one is the lunad client's entry of a buf_request_sync answer.
local function one(step, res, client_id, err)
  if not res then
    fail(step, "no answer: " .. tostring(err))
  end
  local r = res[client_id]
  if not r then
    fail(step, "no answer from the lunad client", { answer = vim.inspect(res) })
  end
  local e = r.error or r.err -- 0.7: error; 0.10+: err
  if e then
    fail(step, "error: " .. vim.inspect(e))
  end
  return r.result
end

local function lines(buf)
  return vim.api.nvim_buf_get_lines(buf, 0, -1, false)
end

local function diag_list(buf)
  local out = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    table.insert(out, { lnum = d.lnum, col = d.col, severity = d.severity, message = d.message, source = d.source })
  end
  return out
end

local function warning_about(buf, name)
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    if d.severity == vim.diagnostic.severity.WARN and d.message:find(name, 1, true) then
      return d
    end
  end
  return nil
end

-- all_clients: vim.lsp.get_clients (0.10+) or get_active_clients (0.7).
local function all_clients()
  return (vim.lsp.get_clients or vim.lsp.get_active_clients)()
end

local lunad

local function main()
  local v = vim.version()
  emit("version", { nvim = ("%d.%d.%d"):format(v.major, v.minor, v.patch) })

  -- The plugin from editors/nvim, started as a user would.
  vim.opt.runtimepath:prepend(plugin)
  local ok, mod = pcall(require, "lunad")
  if not ok then
    fail("plugin", "require('lunad'): " .. tostring(mod))
  end
  lunad = mod
  local ok2, err = pcall(lunad.setup, { cmd = { bin, "lsp" } })
  if not ok2 then
    fail("plugin", "setup: " .. tostring(err))
  end
  local commands = {}
  for _, c in ipairs({ "LunaUndo", "LunaRedo", "LunaAck", "LunaHistory", "LunaDiff", "LunaStale", "LunaEditFromClipboard", "LunaAsk" }) do
    if vim.fn.exists(":" .. c) == 2 then
      table.insert(commands, c)
    end
  end
  emit("plugin", {
    commands = commands,
    uses_lsp_config = lunad.uses_lsp_config(),
    client_command = type(vim.lsp.commands["luna.editFromClipboard"]) == "function"
      and type(vim.lsp.commands["luna.askPrompt"]) == "function",
    root = lunad.find_root(ws .. "/guide.md"),
  })

  local original_config = vim.fn.readfile(ws .. "/config.py")

  -- Open the article; the plugin starts and attaches the client.
  vim.cmd("edit " .. vim.fn.fnameescape(ws .. "/guide.md"))
  local guide = vim.api.nvim_get_current_buf()
  local guide_uri = vim.uri_from_bufnr(guide)
  local client
  if not vim.wait(15000, function()
    client = lunad.client(guide)
    return client ~= nil and client.initialized and raw_diags[guide_uri] ~= nil
  end, 20) then
    fail("initialized", "the lunad client did not initialize and publish guide.md's diagnostics within 15s",
      { clients = #all_clients(), attached = client ~= nil })
  end
  emit("initialized", { root = client.config.root_dir, name = client.name, diagnostics = raw_diags[guide_uri] })

  -- Go to the definition of parse_config: UTF-16 column after 😀𝄞.
  local line = vim.api.nvim_buf_get_lines(guide, 2, 3, true)[1]
  local bytecol = line:find("parse_config", 1, true) - 1
  local _, utf16col = vim.str_utfindex(line, bytecol)
  local pos = { textDocument = { uri = guide_uri }, position = { line = 2, character = utf16col } }
  local res, rerr = vim.lsp.buf_request_sync(guide, "textDocument/definition", pos, 10000)
  local def = one("definition", res, client.id, rerr)
  if type(def) == "table" and def.uri == nil and def.targetUri == nil then
    def = def[1]
  end
  if type(def) ~= "table" then
    fail("definition", "no location", { result = vim.inspect(def) })
  end
  local range = def.range or def.targetSelectionRange
  emit("definition", { uri = def.uri or def.targetUri, line = range.start.line, character = range.start.character,
    bytecol = bytecol, utf16col = utf16col })

  -- Land there, as gd does.
  if vim.lsp.util.show_document then
    vim.lsp.util.show_document(def, client.offset_encoding or "utf-16", { focus = true })
  else
    vim.lsp.util.jump_to_location(def, client.offset_encoding or "utf-16")
  end
  local config = vim.api.nvim_get_current_buf()
  local config_uri = vim.uri_from_bufnr(config)
  emit("jump", { file = vim.api.nvim_buf_get_name(config), line = vim.api.nvim_win_get_cursor(0)[1] })
  -- config.py is now open and attached: the server tracks the buffer.
  if not vim.wait(10000, function()
    return vim.lsp.buf_is_attached(config, client.id) and raw_diags[config_uri] ~= nil
  end, 20) then
    fail("config_open", "config.py's buffer was not attached (no diagnostics published for it) within 10s")
  end
  emit("config_open", { uri = config_uri })

  -- Hover on the reference.
  res, rerr = vim.lsp.buf_request_sync(guide, "textDocument/hover", pos, 10000)
  local hover = one("hover", res, client.id, rerr)
  if type(hover) ~= "table" then
    fail("hover", "no hover", { result = vim.inspect(hover) })
  end
  local c = hover.contents
  local text = type(c) == "string" and c or (c.value or vim.inspect(c))
  emit("hover", { text = text })

  -- Lenses on the definition's file.
  res, rerr = vim.lsp.buf_request_sync(config, "textDocument/codeLens", { textDocument = { uri = config_uri } }, 10000)
  local lenses = one("codelens", res, client.id, rerr) or {}
  local titles = {}
  for _, l in ipairs(lenses) do
    table.insert(titles, l.command and l.command.title or "")
  end
  emit("codelens", { titles = titles })

  -- The plugin's :LunaHistory shows config.py's versions in a scratch
  -- window.
  local config_win = vim.api.nvim_get_current_win()
  vim.cmd("LunaHistory")
  local history
  if not vim.wait(10000, function()
    local b = vim.api.nvim_get_current_buf()
    if vim.api.nvim_buf_get_name(b):find("lunad://history", 1, true) then
      history = lines(b)
    end
    return history ~= nil
  end, 20) then
    fail("history", ":LunaHistory showed no history within 10s", { messages = messages })
  end
  vim.cmd("close")
  vim.api.nvim_set_current_win(config_win)
  emit("history", { lines = history })

  -- "apply SEARCH/REPLACE from clipboard" on a selection of guide.md: the
  -- server offers the code action, the plugin runs it (luna.edit with the
  -- unnamed register) and the buffer follows through workspace/applyEdit.
  vim.fn.setreg('"', "<<<<<<< SEARCH\n# Guide\n=======\n# The guide\n>>>>>>> REPLACE\n")
  res, rerr = vim.lsp.buf_request_sync(guide, "textDocument/codeAction", {
    textDocument = { uri = guide_uri },
    range = { start = { line = 0, character = 0 }, ["end"] = { line = 0, character = 7 } },
    context = { diagnostics = {} },
  }, 10000)
  local action
  for _, a in ipairs(one("clipboard_edit", res, client.id, rerr) or {}) do
    local command = type(a.command) == "table" and a.command or a
    if command.command == "luna.editFromClipboard" then
      action = command
    end
  end
  if not action then
    fail("clipboard_edit", "no luna.editFromClipboard code action on a selection", { actions = vim.inspect(res) })
  end
  vim.lsp.commands[action.command](action, { bufnr = guide, client_id = client.id })
  if not vim.wait(10000, function()
    return lines(guide)[1] == "# The guide"
  end, 20) then
    fail("clipboard_edit", "guide.md's buffer did not follow the clipboard edit within 10s",
      { buffer = lines(guide), applied = applied, messages = messages })
  end
  emit("clipboard_edit", { buffer = lines(guide) })

  -- Another process edits config.py (lunad edit); wait for its result.
  local f = assert(io.open(sync_dir .. "/ready", "w"))
  f:write("ready\n")
  f:close()
  emit("ready")
  if not vim.wait(20000, function()
    return exists(sync_dir .. "/edited") or exists(sync_dir .. "/edit-failed")
  end, 20) then
    fail("edited", "the test did not report the edit within 20s")
  end
  if exists(sync_dir .. "/edit-failed") then
    fail("edited", "lunad edit failed: " .. (read(sync_dir .. "/edit-failed") or ""))
  end
  emit("edited", { output = read(sync_dir .. "/edited") })

  -- The stale diagnostic appears on guide.md.
  if not vim.wait(10000, function()
    return warning_about(guide, "parse_config") ~= nil
  end, 20) then
    fail("stale", "no stale warning about parse_config on guide.md within 10s of the edit", {
      diagnostics = diag_list(guide), raw = raw_diags[guide_uri], config_buffer = lines(config),
      applied = applied, messages = messages,
    })
  end
  local raw_stale
  for _, d in ipairs(raw_diags[guide_uri] or {}) do
    if d.severity == 2 then
      raw_stale = d
    end
  end
  emit("stale", { diagnostics = diag_list(guide), raw = raw_stale })

  -- :LunaStale in config.py lists its stale dependents (guide.md).
  vim.fn.setqflist({}, "r")
  vim.cmd("LunaStale")
  local qf
  if not vim.wait(10000, function()
    qf = vim.fn.getqflist()
    return #qf > 0
  end, 20) then
    fail("stale_list", ":LunaStale filled no quickfix list within 10s", { messages = messages })
  end
  vim.cmd("cclose")
  vim.api.nvim_set_current_win(config_win)
  local items = {}
  for _, it in ipairs(qf) do
    table.insert(items, { file = vim.api.nvim_buf_get_name(it.bufnr), lnum = it.lnum, col = it.col, text = it.text, type = it.type })
  end
  emit("stale_list", { items = items })

  -- The open config.py buffer follows the edit (workspace/applyEdit).
  if not vim.wait(5000, function()
    return table.concat(lines(config), "\n"):find("or {}", 1, true) ~= nil
  end, 20) then
    fail("buffer_after_edit", "config.py's buffer did not get the edit within 5s",
      { buffer = lines(config), applied = applied, messages = messages })
  end
  emit("buffer_after_edit", { buffer = lines(config), applied = #applied, modified = vim.bo[config].modified })

  -- luna.undo on config.py, from Neovim.
  res, rerr = vim.lsp.buf_request_sync(config, "workspace/executeCommand",
    { command = "luna.undo", arguments = { config_uri } }, 10000)
  local undone = one("undo", res, client.id, rerr)
  emit("undo", { result = undone })

  if not vim.wait(10000, function()
    return #vim.diagnostic.get(guide) == 0
  end, 20) then
    fail("cleared", "the stale diagnostic did not clear within 10s of luna.undo",
      { diagnostics = diag_list(guide), raw = raw_diags[guide_uri], messages = messages })
  end
  emit("cleared", { raw = raw_diags[guide_uri] })

  if not vim.wait(5000, function()
    return vim.deep_equal(lines(config), original_config)
  end, 20) then
    fail("buffer_after_undo", "config.py's buffer was not brought back by workspace/applyEdit within 5s",
      { buffer = lines(config), want = original_config, applied = applied, messages = messages })
  end
  emit("buffer_after_undo", { buffer = lines(config), applied = #applied, modified = vim.bo[config].modified })

  -- luna.runWorkflow answers with the run at once; $/progress follows it.
  res, rerr = vim.lsp.buf_request_sync(config, "workspace/executeCommand",
    { command = "luna.runWorkflow", arguments = { { workflow = "review", params = { score = "0.9" } } } }, 10000)
  local started = one("run_started", res, client.id, rerr)
  emit("run_started", { id = started.id, status = started.status })
  local token = "lunad-run-" .. started.id
  if not vim.wait(20000, function()
    local p = progress[token]
    return p ~= nil and p[#p].kind == "end"
  end, 20) then
    fail("run_progress", "the run's progress did not end within 20s", { progress = progress[token] or {}, messages = messages })
  end
  emit("run_progress", { progress = progress[token] })
  res, rerr = vim.lsp.buf_request_sync(config, "workspace/executeCommand",
    { command = "luna.runs", arguments = { { id = started.id } } }, 10000)
  local shown = one("run_shown", res, client.id, rerr)
  emit("run_shown", { status = shown.status, path = shown.path })
end

local ok, err = xpcall(main, function(e)
  if e == failed then
    return e
  end
  return debug.traceback(tostring(e), 2)
end)
if not ok and err ~= failed then
  emit("error", { ok = false, error = tostring(err) })
end

-- Stop the clients before quitting (timers and replies only run in vim.wait).
local ids = {}
for _, c in ipairs(all_clients()) do
  table.insert(ids, c.id)
end
vim.lsp.stop_client(ids)
local stopped = vim.wait(5000, function()
  for _, id in ipairs(ids) do
    if vim.lsp.get_client_by_id(id) ~= nil then
      return false
    end
  end
  return true
end, 20)
emit("done", { ok = ok, clients_stopped = stopped, messages = messages })
vim.cmd("qall!")

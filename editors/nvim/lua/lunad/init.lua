-- lunad for Neovim: starts `lunad lsp` for files in a lunad workspace and
-- adds :Luna* commands. Works on Neovim 0.7+; on 0.11+ it registers the
-- server with vim.lsp.config / vim.lsp.enable.
--
--   require("lunad").setup({ cmd = { "lunad", "lsp" }, filetypes = nil })
--
-- See editors/nvim/README.md and docs/editors.md.
local M = {}

local uv = vim.uv or vim.loop

local defaults = {
  -- The server command.
  cmd = { "lunad", "lsp" },
  -- Extra environment for the server process (e.g. LUNAD_AUTHOR_NAME).
  cmd_env = nil,
  -- Filetypes to attach to; nil attaches to every file of a workspace.
  filetypes = nil,
  -- The client's name (as :LspInfo and vim.lsp.get_clients show it).
  name = "lunad",
  -- Passed through to the client.
  capabilities = nil,
  handlers = nil,
  flags = nil,
  on_attach = nil,
  -- Refresh code lenses ("v7 · 3 dependents · 1 stale") on attach, on
  -- BufEnter, InsertLeave, BufWritePost and after each :Luna* command.
  codelens = true,
  -- Define :LunaUndo, :LunaRedo, :LunaAck, :LunaHistory, :LunaDiff,
  -- :LunaStale, :LunaEditFromClipboard and :LunaAsk.
  commands = true,
  -- nil: use vim.lsp.config/vim.lsp.enable when Neovim has them (0.11+);
  -- false: always vim.lsp.start_client + vim.lsp.buf_attach_client.
  use_lsp_config = nil,
}

M.config = vim.deepcopy(defaults)

-- The file that marks a workspace's root.
M.marker = ".luna/workspace.json"

local function notify(msg, level)
  vim.notify("lunad: " .. msg, level or vim.log.levels.INFO)
end

local function has(feature)
  return vim.fn.has(feature) == 1
end

-- str renders a decoded JSON value (vim.NIL for null) as text.
local function str(v)
  if v == nil or v == vim.NIL then
    return ""
  end
  return tostring(v)
end

--- The workspace root for a file or directory: the nearest directory at
--- or above it that holds .luna/workspace.json, or nil.
function M.find_root(path)
  if not path or path == "" then
    return nil
  end
  path = vim.fn.fnamemodify(path, ":p")
  local st = uv.fs_stat(path)
  local dir = (st and st.type == "directory") and path or vim.fn.fnamemodify(path, ":h")
  if #dir > 1 then
    dir = dir:gsub("/+$", "")
  end
  while dir and dir ~= "" do
    local sep = dir:sub(-1) == "/" and "" or "/"
    if uv.fs_stat(dir .. sep .. M.marker) then
      return dir
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

-- root_of is the workspace root of a buffer lunad should serve: a normal
-- file buffer, of a configured filetype, in a workspace, and not inside
-- .git or .luna.
local function root_of(bufnr)
  if not vim.api.nvim_buf_is_valid(bufnr) or vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local name = vim.api.nvim_buf_get_name(bufnr)
  if name == "" or name:match("^%a[%w+.-]*://") then
    return nil
  end
  local fts = M.config.filetypes
  if fts and not vim.tbl_contains(fts, vim.bo[bufnr].filetype) then
    return nil
  end
  name = vim.fn.fnamemodify(name, ":p")
  local root = M.find_root(name)
  if not root then
    return nil
  end
  local rel = name:sub(#root + 2)
  if rel:match("^%.git/") or rel:match("^%.luna/") then
    return nil
  end
  return root
end

-- request calls client.request on 0.7–0.10 and client:request on 0.11+.
local function request(client, method, params, handler, bufnr)
  if has("nvim-0.11") then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

local function stopped(client)
  if has("nvim-0.11") then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- The lunad client attached to a buffer (default: the current one).
function M.client(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = M.config.name })[1]
  end
  for _, c in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if c.name == M.config.name then
      return c
    end
  end
  return nil
end

local function refresh_lenses(bufnr)
  if not M.config.codelens then
    return
  end
  if bufnr == nil or bufnr == vim.api.nvim_get_current_buf() then
    pcall(vim.lsp.codelens.refresh)
  end
end

--- Runs a server command (workspace/executeCommand) for a buffer.
--- opts: bufnr (default current), client_id, on_result(result, client).
function M.execute(command, args, opts)
  opts = opts or {}
  local bufnr = opts.bufnr
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local client = opts.client_id and vim.lsp.get_client_by_id(opts.client_id) or M.client(bufnr)
  if not client then
    notify("this buffer has no lunad client (is it in a lunad workspace?)", vim.log.levels.WARN)
    return
  end
  local params = { command = command, arguments = args or {} }
  request(client, "workspace/executeCommand", params, function(err, result)
    if err then
      notify(command .. ": " .. str(err.message), vim.log.levels.ERROR)
      return
    end
    if opts.on_result then
      opts.on_result(result, client)
    end
    refresh_lenses(bufnr)
  end, bufnr)
end

-- scratch shows lines in a new read-only split.
local function scratch(name, lines, filetype)
  vim.cmd("botright new")
  local buf = vim.api.nvim_get_current_buf()
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "wipe"
  vim.bo[buf].swapfile = false
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  pcall(vim.api.nvim_buf_set_name, buf, name)
  return buf
end

-- written reports a write command's result ({artifact, version}).
local function written(verb)
  return function(res)
    if type(res) == "table" and type(res.artifact) == "table" then
      notify(("%s %s → v%s"):format(verb, str(res.artifact.path), str(res.artifact.version)))
    else
      notify(verb .. " done")
    end
  end
end

local function show_history(res)
  local lines = {}
  for i = #(res or {}), 1, -1 do
    local v = res[i]
    local msg = str(v.message):match("^[^\n]*")
    table.insert(lines, ("v%-4s %s  %-8s %-16s %s"):format(str(v.version), str(v.time), str(v.op), str(v.agent), msg))
  end
  if #lines == 0 then
    lines = { "(no history)" }
  end
  scratch("lunad://history", lines)
end

local function show_diff(res)
  local text = type(res) == "string" and res or vim.fn.json_encode(res)
  if text == "" then
    notify("no differences")
    return
  end
  scratch("lunad://diff", vim.split((text:gsub("\n$", "")), "\n", { plain = true }), "diff")
end

local bad = { stale = true, broken = true, ambiguous = true }

-- ref_items turns a luna.references report into quickfix items, each at
-- the place the reference is written: with opts.stale only the references
-- that are stale, broken or ambiguous, from the artifact (→) and to it
-- (←); else every reference to it (its dependents).
function M.ref_items(report, root, opts)
  opts = opts or {}
  local items = {}
  local function add(r, dir)
    if type(r) ~= "table" or (opts.stale and not bad[str(r.state)]) then
      return
    end
    local from = type(r.from) == "table" and r.from or {}
    local span = type(from.span) == "table" and from.span.start or {}
    local target = str(r.text)
    if type(r.to) == "table" then
      target = str(r.to.path) .. (str(r.to.symbol) ~= "" and ("#" .. str(r.to.symbol)) or "")
    end
    local text = ("%s %s %s"):format(dir, str(r.state), target)
    if str(r.reason) ~= "" then
      text = text .. ": " .. str(r.reason)
    end
    local state = str(r.state)
    table.insert(items, {
      filename = root .. "/" .. str(from.path),
      lnum = (tonumber(span.line) or 0) + 1,
      col = (tonumber(span.column) or 0) + 1,
      type = state == "broken" and "E" or (state == "stale" and "W" or (state == "ok" and "" or "I")),
      text = text,
    })
  end
  if type(report) ~= "table" then
    return items
  end
  if opts.stale then
    for _, r in ipairs(type(report.outgoing) == "table" and report.outgoing or {}) do
      add(r, "→")
    end
  end
  for _, r in ipairs(type(report.incoming) == "table" and report.incoming or {}) do
    add(r, "←")
  end
  return items
end

local function show_refs(res, client, stale)
  local root = client and client.config and client.config.root_dir or vim.fn.getcwd()
  local items = M.ref_items(res, root, { stale = stale })
  if #items == 0 then
    notify(stale and "no stale, broken or ambiguous references to or from this artifact" or "no references to it")
    return
  end
  local title = stale and "lunad: stale references" or "lunad: dependents"
  vim.fn.setqflist({}, " ", { title = title, items = items })
  vim.cmd("copen")
end

local function show_stale(res, client)
  show_refs(res, client, true)
end

local function show_dependents(res, client)
  show_refs(res, client, false)
end

-- clipboard is the + register's text, else the unnamed register's.
local function clipboard()
  local regs = has("clipboard") and { "+", '"' } or { '"' }
  for _, reg in ipairs(regs) do
    local ok, text = pcall(vim.fn.getreg, reg)
    if ok and type(text) == "string" and text ~= "" then
      return text
    end
  end
  return ""
end

--- The client-side command luna.editFromClipboard (the code action "apply
--- SEARCH/REPLACE from clipboard"): sends the clipboard's SEARCH/REPLACE
--- blocks to luna.edit for the document (its first argument, else the
--- current buffer).
function M.edit_from_clipboard(command, ctx)
  ctx = ctx or {}
  local bufnr = ctx.bufnr or vim.api.nvim_get_current_buf()
  local args = command and command.arguments or {}
  local uri = type(args[1]) == "string" and args[1] or vim.uri_from_bufnr(bufnr)
  local text = clipboard()
  if text == "" then
    notify("the clipboard (+ or unnamed register) is empty; copy SEARCH/REPLACE blocks first", vim.log.levels.WARN)
    return
  end
  M.execute("luna.edit", { uri, text }, { bufnr = bufnr, client_id = ctx.client_id, on_result = written("edited") })
end

--- Asks lunad's agents (luna.ask) to do request, with the artifact at uri
--- (default: the current buffer) as the active one; dry_run only routes and
--- compiles the prompts. The ask is reported as LSP progress; it ends with
--- a message saying what was done or the question asked back, and the
--- artifacts it writes are updated in their open buffers.
function M.ask(request, opts)
  opts = opts or {}
  local bufnr = opts.bufnr or vim.api.nvim_get_current_buf()
  if type(request) ~= "string" or vim.trim(request) == "" then
    notify("say what the agents should do, e.g. :LunaAsk rename parse_config to load_config", vim.log.levels.WARN)
    return
  end
  local arg = { request = request, artifact = opts.uri or vim.uri_from_bufnr(bufnr), dryRun = opts.dry_run or false }
  M.execute("luna.ask", { arg }, {
    bufnr = bufnr,
    client_id = opts.client_id,
    on_result = function(res)
      notify(("asked (run %s); progress follows, then what was done"):format(str(type(res) == "table" and res.id or "")))
    end,
  })
end

--- The client-side command luna.askPrompt (the code action "ask the
--- agents about this artifact…"): asks for the request, then M.ask with
--- the document (its first argument, else the current buffer).
function M.ask_prompt(command, ctx)
  ctx = ctx or {}
  local bufnr = ctx.bufnr or vim.api.nvim_get_current_buf()
  local args = command and command.arguments or {}
  local uri = type(args[1]) == "string" and args[1] or vim.uri_from_bufnr(bufnr)
  vim.ui.input({ prompt = "lunad ask: " }, function(text)
    if text and vim.trim(text) ~= "" then
      M.ask(text, { bufnr = bufnr, uri = uri, client_id = ctx.client_id })
    end
  end)
end

-- Commands the server offers in lenses and code actions whose results
-- are worth showing: run them through the server and show the result
-- (Neovim would otherwise drop it).
local shown = { ["luna.history"] = show_history, ["luna.diff"] = show_diff, ["luna.references"] = show_dependents }

local function register_client_commands()
  vim.lsp.commands["luna.editFromClipboard"] = M.edit_from_clipboard
  vim.lsp.commands["luna.askPrompt"] = M.ask_prompt
  for name, show in pairs(shown) do
    vim.lsp.commands[name] = function(command, ctx)
      M.execute(name, command.arguments, { bufnr = ctx.bufnr, client_id = ctx.client_id, on_result = show })
    end
  end
end

local function buffer_uri()
  return vim.uri_from_bufnr(vim.api.nvim_get_current_buf())
end

local function define_user_commands()
  local function def(name, fn, opts)
    vim.api.nvim_create_user_command(name, fn, vim.tbl_extend("force", { force = true }, opts or {}))
  end
  def("LunaUndo", function()
    M.execute("luna.undo", { buffer_uri() }, { on_result = written("undone:") })
  end, { desc = "lunad: undo the last change to this artifact" })
  def("LunaRedo", function()
    M.execute("luna.redo", { buffer_uri() }, { on_result = written("redone:") })
  end, { desc = "lunad: redo the last undone change to this artifact" })
  def("LunaAck", function(o)
    local args = { buffer_uri() }
    if o.args ~= "" then
      table.insert(args, o.args)
    end
    M.execute("luna.ack", args, { on_result = written("acknowledged:") })
  end, { nargs = "?", desc = "lunad: acknowledge the changes this artifact's references point at [symbol]" })
  def("LunaHistory", function()
    M.execute("luna.history", { buffer_uri() }, { on_result = show_history })
  end, { desc = "lunad: this artifact's versions" })
  def("LunaDiff", function(o)
    local args = { buffer_uri() }
    for _, n in ipairs(o.fargs) do
      table.insert(args, tonumber(n) or n)
    end
    M.execute("luna.diff", args, { on_result = show_diff })
  end, { nargs = "*", desc = "lunad: diff this artifact [from [to]] (default: its last change)" })
  def("LunaStale", function()
    M.execute("luna.references", { buffer_uri() }, { on_result = show_stale })
  end, { desc = "lunad: stale references from and to this artifact, in the quickfix list" })
  def("LunaEditFromClipboard", function()
    M.edit_from_clipboard(nil, { bufnr = vim.api.nvim_get_current_buf() })
  end, { desc = "lunad: apply the SEARCH/REPLACE blocks in the clipboard to this artifact" })
  def("LunaAsk", function(o)
    if o.args == "" then
      M.ask_prompt(nil, { bufnr = vim.api.nvim_get_current_buf() })
    else
      M.ask(o.args, { dry_run = o.bang })
    end
  end, { nargs = "*", bang = true, desc = "lunad: ask the agents {request} about this artifact (! only shows the route and prompts)" })
end

-- apply_edit handles workspace/applyEdit: the default handler applies the
-- edit; lunad sends one when an artifact open here changed (undo, an edit
-- from elsewhere) and has already written the file, so a buffer that now
-- equals its file is marked unmodified (no "file changed" prompts).
local function apply_edit(err, params, ctx, config)
  local res = vim.lsp.handlers["workspace/applyEdit"](err, params, ctx, config)
  local edit = type(params) == "table" and params.edit or nil
  if type(edit) ~= "table" then
    return res
  end
  local uris = {}
  for uri in pairs(type(edit.changes) == "table" and edit.changes or {}) do
    uris[uri] = true
  end
  for _, change in ipairs(type(edit.documentChanges) == "table" and edit.documentChanges or {}) do
    if type(change.textDocument) == "table" then
      uris[change.textDocument.uri] = true
    end
  end
  for uri in pairs(uris) do
    local fname = vim.uri_to_fname(uri)
    for _, buf in ipairs(vim.api.nvim_list_bufs()) do
      if vim.api.nvim_buf_is_loaded(buf) and vim.bo[buf].modified and vim.api.nvim_buf_get_name(buf) == fname then
        local ok, disk = pcall(vim.fn.readfile, fname)
        if ok and vim.deep_equal(disk, vim.api.nvim_buf_get_lines(buf, 0, -1, false)) then
          vim.bo[buf].modified = false
        end
      end
    end
  end
  return res
end

local function handlers()
  return vim.tbl_extend("keep", M.config.handlers or {}, { ["workspace/applyEdit"] = apply_edit })
end

local group

local function on_attach(client, bufnr)
  if M.config.codelens and group then
    vim.api.nvim_clear_autocmds({ group = group, buffer = bufnr })
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
      group = group,
      buffer = bufnr,
      callback = function()
        refresh_lenses()
      end,
    })
    refresh_lenses(bufnr)
  end
  if M.config.on_attach then
    M.config.on_attach(client, bufnr)
  end
end

-- clients maps a workspace root to its client's ID (0.7–0.10 path).
local clients = {}

local function start_config(root)
  local c = M.config
  return {
    name = c.name,
    cmd = c.cmd,
    cmd_env = c.cmd_env,
    root_dir = root,
    workspace_folders = { { uri = vim.uri_from_fname(root), name = root } },
    capabilities = c.capabilities or vim.lsp.protocol.make_client_capabilities(),
    handlers = handlers(),
    flags = c.flags,
    on_attach = on_attach,
    on_exit = function(_, _, client_id)
      if clients[root] == client_id then
        clients[root] = nil
      end
    end,
  }
end

--- Starts (once per workspace) the lunad client and attaches it to a
--- buffer of that workspace. Returns the client ID, or nil when the
--- buffer is not lunad's. Used on 0.7–0.10; on 0.11+ vim.lsp.enable does
--- this.
function M.attach(bufnr)
  if bufnr == nil or bufnr == 0 then
    bufnr = vim.api.nvim_get_current_buf()
  end
  local root = root_of(bufnr)
  if not root then
    return nil
  end
  local id = clients[root]
  local client = id and vim.lsp.get_client_by_id(id)
  if not client or stopped(client) then
    id = vim.lsp.start_client(start_config(root))
    if not id then
      notify("could not start " .. table.concat(M.config.cmd, " "), vim.log.levels.ERROR)
      return nil
    end
    clients[root] = id
  end
  if not vim.lsp.buf_is_attached(bufnr, id) then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

--- Whether setup uses vim.lsp.config/vim.lsp.enable (Neovim 0.11+).
function M.uses_lsp_config()
  local v = M.config.use_lsp_config
  if v == nil then
    v = has("nvim-0.11") and vim.lsp.config ~= nil and type(vim.lsp.enable) == "function"
  end
  return v and true or false
end

function M.setup(opts)
  M.config = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  -- lists replace the defaults rather than merging by index
  if opts and opts.cmd then
    M.config.cmd = opts.cmd
  end
  if opts and opts.filetypes then
    M.config.filetypes = opts.filetypes
  end
  group = vim.api.nvim_create_augroup("lunad", { clear = true })
  register_client_commands()
  if M.config.commands then
    define_user_commands()
  end
  if M.uses_lsp_config() then
    local c = M.config
    vim.lsp.config(c.name, {
      cmd = c.cmd,
      cmd_env = c.cmd_env,
      filetypes = c.filetypes,
      root_dir = function(bufnr, on_dir)
        local root = root_of(bufnr)
        if root then
          on_dir(root)
        end
      end,
      capabilities = c.capabilities,
      handlers = handlers(),
      flags = c.flags,
      on_attach = on_attach,
    })
    vim.lsp.enable(c.name)
    return
  end
  vim.api.nvim_create_autocmd({ "FileType", "BufReadPost", "BufNewFile" }, {
    group = group,
    callback = function(ev)
      M.attach(ev.buf)
    end,
  })
  -- buffers opened before setup
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) then
      M.attach(b)
    end
  end
end

return M

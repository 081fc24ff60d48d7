-- A minimal Neovim setup for lunad (Neovim 0.7 or later).
-- Try it without touching your config:
--   nvim -u /path/to/lunad/editors/nvim/example/init.lua notes.md
-- (from inside a lunad workspace), or copy the lines you need into your
-- init.lua.

-- Where this checkout's editors/nvim is (the directory above this file).
local plugin = vim.fn.fnamemodify(debug.getinfo(1, "S").source:sub(2), ":p:h:h")
vim.opt.runtimepath:prepend(plugin)

require("lunad").setup({
  cmd = { "lunad", "lsp" }, -- or { "/abs/path/to/bin/lunad", "lsp" }
  -- filetypes = { "markdown", "python", "go" }, -- default: every file of the workspace
  on_attach = function(_, bufnr)
    local map = function(lhs, rhs)
      vim.keymap.set("n", lhs, rhs, { buffer = bufnr })
    end
    -- Neovim 0.7 maps none of these by default.
    map("gd", vim.lsp.buf.definition)
    map("gr", vim.lsp.buf.references)
    map("K", vim.lsp.buf.hover)
    map("<leader>a", vim.lsp.buf.code_action) -- acknowledge, show what changed
    map("<leader>l", vim.lsp.codelens.run) -- run the lens on this line
    map("]d", vim.diagnostic.goto_next)
    map("[d", vim.diagnostic.goto_prev)
  end,
})

-- Neovim's built-in LSP client against a real `doublet serve`, for tests/lsp/test_neovim.py.
--
-- Run as:  nvim --headless --clean -u tests/lsp/nvim/init.lua
-- with these environment variables:
--   DOUBLET_PYTHON   the Python that runs `-m doublet serve` (the test's sys.executable)
--   DOUBLET_ROOT     the workspace folder (root_dir)
--   DOUBLET_FILE     the file to open, inside DOUBLET_ROOT
--   DOUBLET_OUT      where to write the JSON result
--   DOUBLET_TIMEOUT  milliseconds to wait for diagnostics (default 30000)
--   DOUBLET_LSP_LOG  optional: Neovim's LSP log level ("debug" logs every message in lsp.log)
--   DOUBLET_SETTINGS optional: the `doublet` settings as JSON, instead of the doc's
--   DOUBLET_CHECK    optional: "manual" waits a moment, records what was published, then
--                    runs the command doublet.checkDocument on the buffer
--
-- Only APIs Neovim 0.7 has are used (Debian 12 ships 0.7.2): vim.lsp.start_client and
-- vim.lsp.buf_attach_client from a FileType autocommand, not vim.lsp.start nor the
-- LspAttach event (both 0.8). Part 1 is the setup docs/editors.md gives for Neovim 0.7,
-- with the command and root filled in by the test; part 2 drives it. Whatever happens,
-- the script writes DOUBLET_OUT and quits, so the test never hangs on an editor waiting
-- for input.

local uv = vim.loop
local started = uv.hrtime()

local function ms()
  return math.floor((uv.hrtime() - started) / 1e6)
end

local result = {
  nvim = vim.version(),
  publications = {}, -- every textDocument/publishDiagnostics, as received
  messages = {}, -- window/showMessage and window/logMessage
  diagnostics = {}, -- vim.diagnostic.get() of the opened buffer, source "doublet"
  timings = {}, -- milliseconds since Neovim ran this script
}

-- 1. The setup of docs/editors.md (Neovim 0.7) --------------------------------------

-- The `doublet` settings: sent with initialize (init_options, which Neovim 0.7 needs:
-- it neither advertises workspace/configuration nor pushes `settings` by itself) and
-- answered to workspace/configuration (settings, which Neovim 0.8+ asks for).
local doublet_settings = { severity = "information", debounce = 300 }
local settings_json = os.getenv("DOUBLET_SETTINGS") -- the test's, where it sets its own
if settings_json and settings_json ~= "" then
  doublet_settings = vim.fn.json_decode(settings_json)
end

local function doublet_config()
  return {
    name = "doublet",
    cmd = { "doublet", "serve" },
    root_dir = vim.fn.getcwd(),
    settings = { doublet = doublet_settings },
    init_options = { settings = doublet_settings },
  }
end

-- 2. The test's additions --------------------------------------------------------------

local function record_message(kind)
  return function(_, params)
    table.insert(result.messages, { kind = kind, type = params.type, message = params.message })
  end
end

local function test_config()
  local config = doublet_config()
  config.cmd = { assert(os.getenv("DOUBLET_PYTHON"), "DOUBLET_PYTHON is not set"), "-m", "doublet", "serve" }
  config.root_dir = assert(os.getenv("DOUBLET_ROOT"), "DOUBLET_ROOT is not set")
  config.cmd_cwd = config.root_dir
  config.handlers = {
    ["textDocument/publishDiagnostics"] = function(err, params, ctx, handler_config)
      table.insert(result.publications, {
        ms = ms(),
        uri = params.uri,
        version = params.version,
        count = #params.diagnostics,
        diagnostics = params.diagnostics,
      })
      return vim.lsp.diagnostic.on_publish_diagnostics(err, params, ctx, handler_config)
    end,
    ["window/showMessage"] = record_message("showMessage"),
    ["window/logMessage"] = record_message("logMessage"),
  }
  config.on_init = function(client, initialize_result)
    result.timings.initialized = ms()
    result.server_info = initialize_result.serverInfo
    result.position_encoding = initialize_result.capabilities.positionEncoding
    result.offset_encoding = client.offset_encoding
  end
  config.on_exit = function(code, signal)
    result.exit = { code = code, signal = signal, ms = ms() }
  end
  return config
end

-- 1 (continued). Start the server for the first text or Markdown buffer, attach the rest.
local doublet_client_id
vim.api.nvim_create_autocmd("FileType", {
  pattern = { "text", "markdown" },
  callback = function(args)
    if doublet_client_id == nil or vim.lsp.get_client_by_id(doublet_client_id) == nil then
      doublet_client_id = vim.lsp.start_client(test_config()) -- the doc: doublet_config()
      result.timings.client_started = ms()
    end
    if doublet_client_id then
      vim.lsp.buf_attach_client(args.buf, doublet_client_id)
    end
  end,
})

-- 2 (continued). Open the essay, wait for diagnostics, stop the server, write the result.

local function doublet_diagnostics(bufnr)
  local found = {}
  for _, diagnostic in ipairs(vim.diagnostic.get(bufnr)) do
    if diagnostic.source == "doublet" then
      table.insert(found, diagnostic)
    end
  end
  return found
end

local function export(diagnostic)
  local lsp = (diagnostic.user_data or {}).lsp or {}
  return {
    message = diagnostic.message,
    -- as vim.diagnostic stores it: 0-based lines, columns in bytes of the buffer line
    range = {
      start = { line = diagnostic.lnum, character = diagnostic.col },
      ["end"] = { line = diagnostic.end_lnum, character = diagnostic.end_col },
    },
    severity = diagnostic.severity, -- vim.diagnostic.severity: 1 error ... 4 hint
    source = diagnostic.source,
    code = diagnostic.code,
    relatedInformation = lsp.relatedInformation,
    data = lsp.data,
  }
end

local function main()
  local path = assert(os.getenv("DOUBLET_FILE"), "DOUBLET_FILE is not set")
  local timeout = tonumber(os.getenv("DOUBLET_TIMEOUT") or "30000")
  local log_level = os.getenv("DOUBLET_LSP_LOG")
  if log_level and log_level ~= "" then
    vim.lsp.set_log_level(log_level)
  end

  vim.cmd("edit " .. vim.fn.fnameescape(path)) -- FileType starts the server and attaches
  local bufnr = vim.api.nvim_get_current_buf()
  result.filetype = vim.bo[bufnr].filetype
  assert(doublet_client_id, "no doublet client: did the FileType autocommand run?")
  assert(vim.lsp.buf_is_attached(bufnr, doublet_client_id), "the buffer is not attached")

  if os.getenv("DOUBLET_CHECK") == "manual" then
    vim.wait(1500, function()
      return false
    end, 50)
    result.published_before_command = #result.publications
    local client = vim.lsp.get_client_by_id(doublet_client_id)
    local answer = client.request_sync("workspace/executeCommand", {
      command = "doublet.checkDocument",
      arguments = { vim.uri_from_bufnr(bufnr) },
    }, timeout, bufnr)
    result.command_result = answer and answer.result
    result.command_error = answer and answer.err
  end

  local arrived = vim.wait(timeout, function()
    return #doublet_diagnostics(bufnr) > 0
  end, 20)
  result.timings.diagnostics = ms()
  if not arrived then
    result.error = string.format("no diagnostics from source 'doublet' within %d ms", timeout)
  end
  for _, diagnostic in ipairs(doublet_diagnostics(bufnr)) do
    table.insert(result.diagnostics, export(diagnostic))
  end

  -- Stop the server as Neovim does on :quit (shutdown, then exit), but watch it: Neovim
  -- itself only waits 500 ms before killing a server that does not go.
  local stopping = ms()
  vim.lsp.stop_client(doublet_client_id)
  local stopped = vim.wait(5000, function()
    return result.exit ~= nil
  end, 20)
  result.timings.stop = ms() - stopping
  if not stopped then
    result.stop_error = "the server was still running 5 s after shutdown and exit"
    vim.lsp.stop_client(doublet_client_id, true)
    vim.wait(2000, function()
      return result.exit ~= nil
    end, 20)
  end
end

local function run()
  local ok, err = xpcall(main, debug.traceback)
  if not ok then
    result.error = tostring(err)
  end
  result.timings.total = ms()
  local written, write_err = pcall(function()
    local file = assert(io.open(assert(os.getenv("DOUBLET_OUT"), "DOUBLET_OUT is not set"), "w"))
    file:write(vim.json.encode(result))
    file:close()
  end)
  if not written then
    io.stderr:write("could not write the result: " .. tostring(write_err) .. "\n")
  end
  vim.cmd(result.error and "cquit 1" or "qall!")
end

-- Run once start-up is over, so the editor is fully up and its event loop turns.
vim.api.nvim_create_autocmd("VimEnter", {
  once = true,
  callback = function()
    vim.schedule(run)
  end,
})

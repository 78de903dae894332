"""`symscope mcp`: one repo's index served to coding agents over MCP (stdio), on the official SDK 2.x.

Agents search compact metadata, then fetch whole symbols: few tools, short
descriptions, compact schemas. Everything comes from `symscope.core.api` (the
`Workspace` whose answers the CLI prints), so the server and the CLI cannot
disagree; this package only formats. `build_bundle` takes `diff` (a git revision)
for the CLI's `bundle --diff`: the code changed since it, and its callers.

* Text only. Claude Code hands the model only `structuredContent` when a result
  has it, so results carry none: source stays exact instead of JSON-escaped.
* Savings ride in `_meta` (`symscope/tokens`, `symscope/file_tokens`,
  `symscope/saved_pct`, exact cl100k counts), never in the text the model pays for.
* Never stale, without walking: a file watcher (`core/watch.py`) reports changed files,
  re-indexed in the background; each answer first waits (about 10 ms, bounded) until every
  change made before it is queued, and re-indexes what is still queued (`session.Session`).
  With `SYMSCOPE_WATCH=off` each answer checks the whole repo (a stat of every file) instead.
* Errors are the SDK's `ToolError`, one line saying what went wrong and what
  to call instead, so the model reads them; the server survives every one.
* Untrusted text: ids, paths and signatures pass through `for_terminal`; source
  stays exact except raw control characters (`for_paste`, counted in a note).
  Log lines (stderr) are sanitised too. Nothing but protocol goes to stdout.
* Secrets: every tool that returns repository text redacts it first, with the
  bundles' detector (`symscope.core.secrets.redact`), before anything is cut;
  `_meta["symscope/redacted"]` counts the markers shown; `redact: false` keeps them.
* Bounded: every result is at most `RESULT_BUDGET` tokens (lists `LIST_BUDGET`),
  counted exactly with every note; messages repeat at most 100 characters of an
  argument (`_echo`).

A tool is one method of `Tools` marked with `@_tool(...)`.

The folder is not named `mcp`, so running from the repository root never shadows the SDK.
The modules: `args` (argument types and caps), `formatting` (text, redaction, budgets),
`session` (the index, kept fresh), `tools` (one method per tool), `server` (build and serve).
"""

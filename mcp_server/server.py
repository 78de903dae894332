"""The server's lifecycle: build it over an index, serve it on stdio, end cleanly.

Errors are one line naming the argument or failure, calls stop when cancelled or
when their client goes away, logs go to stderr (sanitised), never stdout.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import anyio
import anyio.from_thread
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError, UnexpectedToolError
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from symscope.core.api import Workspace, for_terminal
from symscope.mcp_server.formatting import _echo, _safe_line
from symscope.mcp_server.session import _CANCEL, Session
from symscope.mcp_server.tools import _TOOLS, Tools

if TYPE_CHECKING:
    from symscope.core.api import Index

log = logging.getLogger("symscope.mcp")

#: Seconds a call may go on after stdin closed before `serve` ends the process.
EXIT_GRACE = 1.5
#: Environment variable that makes unexpected errors log their traceback on stderr.
DEBUG_ENV = "SYMSCOPE_DEBUG"

INSTRUCTIONS = (
    "symscope indexes this repository's code symbols (functions, classes, methods, types). "
    "Search with search_symbols, then fetch exact source with get_symbols for the best ids: "
    "far cheaper than reading whole files. Results always reflect the files on disk."
)


# -- the server ---------------------------------------------------------------------------------


class SymscopeServer(MCPServer[Any]):
    """`MCPServer` whose errors are one line naming the argument (or failure) and what to do,
    and whose calls stop when they are cancelled or their client goes away."""

    symscope: Session
    debug: bool = False
    """Log the traceback of an unexpected error on stderr (`--debug`, or SYMSCOPE_DEBUG=1)."""

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        if name not in _TOOLS:
            raise ToolError(f"unknown tool {_echo(name)}; symscope's tools are " + ", ".join(_TOOLS))
        try:
            return await self._watched(name, arguments, context)
        except UnexpectedToolError as exc:
            raise ToolError(crash_error(name, exc.__cause__ or exc, self.debug)) from None
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(argument_error(name, exc.__cause__)) from exc.__cause__
            raise

    async def _watched(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None
    ) -> CallToolResult | InputRequiredResult:
        """Run the tool with a cancel flag that a watcher task sets once the request is cancelled.

        The SDK runs a tool in a worker thread, which cancellation cannot interrupt (it waits
        for the thread). The watcher is cancelled with the request (`notifications/cancelled`,
        or the transport ending) and sets the flag the tool's work polls (`cancelled()`).
        """
        flag = threading.Event()
        finished = False

        async def watch() -> None:
            try:
                await anyio.sleep_forever()
            finally:
                if not finished:
                    flag.set()

        token = _CANCEL.set(flag)
        result: CallToolResult | InputRequiredResult | None = None
        failure: Exception | None = None
        try:
            async with anyio.create_task_group() as watchers:
                watchers.start_soon(watch)
                try:
                    result = await super().call_tool(name, arguments, context)
                except Exception as exc:  # raised below, not from the group (which would wrap it)
                    failure = exc
                finally:
                    finished = True
                    watchers.cancel_scope.cancel()
        finally:
            _CANCEL.reset(token)
        if failure is not None:
            raise failure
        assert result is not None
        return result


def crash_error(tool: str, exc: BaseException, debug: bool = False) -> str:
    """An unexpected exception as one line for the model (what failed, what to call next),
    and one line on stderr; its traceback goes to stderr only in debug mode."""
    detail = _echo(str(exc), 100)
    what = f"{type(exc).__name__}: {detail}" if detail else type(exc).__name__
    if debug:
        log.error("%s failed unexpectedly", tool, exc_info=exc)
    else:
        log.warning("%s failed unexpectedly (%s); %s=1 or --debug logs the traceback", tool, what, DEBUG_ENV)
    return (f"Error executing tool {tool}: failed unexpectedly ({what}); the server still serves: "
            f"call {tool} again with other arguments, or index_status to check the index")


def argument_error(tool: str, error: ValidationError) -> str:
    """A validation failure as one line: which argument, what is wrong, what to call."""
    first = error.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "arguments"
    field = str(first["loc"][0]) if first["loc"] else "arguments"
    if first["type"] == "missing":
        what = f"missing argument {where}"
    else:
        got = repr(first.get("input"))
        got = got if len(got) <= 40 else got[:39] + "…"
        what = f"bad argument {where}: {first['msg']} (got {got})"
    return _safe_line(f"Error executing tool {tool}: {what}; call {tool} again with a valid {field}")


def compact_schema(node: Any) -> Any:
    """A pydantic JSON schema without titles, and `X | None` shown as plain X.

    Validation still runs on the full model; this only trims what every
    `tools/list` costs the model (the tools schemas ride along in every prompt).
    """
    if isinstance(node, list):
        return [compact_schema(v) for v in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key == "title":
            continue
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: compact_schema(v) for name, v in value.items()}
        else:
            out[key] = compact_schema(value)
    variants = out.get("anyOf")
    if isinstance(variants, list):
        kept = [v for v in variants if v != {"type": "null"}]
        if len(kept) == 1 and len(kept) < len(variants):
            del out["anyOf"]
            out = {**kept[0], **out}
            if "default" in out and out["default"] is None:
                del out["default"]
    return out


@contextlib.contextmanager
def _without_rich() -> Iterator[None]:
    """Keep `rich` unimportable while the SDK sets up its logging.

    MCPServer's constructor installs a rich log handler whenever rich can be
    imported (it can: the UI depends on it); core/ must never load rich, so the
    SDK falls back to a plain handler, which `_log_to_stderr` has made a no-op.
    """
    if "rich" in sys.modules:  # already loaded by the embedding process: nothing to keep out
        yield
        return
    sys.modules["rich"] = None  # type: ignore[assignment]
    try:
        yield
    finally:
        sys.modules.pop("rich", None)


class _SafeFormatter(logging.Formatter):
    """Log lines on stderr reach a person's terminal: sanitised like every other output."""

    def format(self, record: logging.LogRecord) -> str:
        return for_terminal(super().format(record))


def _log_to_stderr() -> None:
    """Sanitised log lines on stderr (stdout is the protocol's), unless logging is set up already."""
    root = logging.getLogger()
    if root.handlers:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_SafeFormatter("symscope mcp: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    log.setLevel(logging.INFO)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("symscope")
    except PackageNotFoundError:
        return "unknown"


def debug_requested() -> bool:
    """SYMSCOPE_DEBUG set to anything but empty, 0, false or no."""
    return os.environ.get(DEBUG_ENV, "").strip().lower() not in ("", "0", "false", "no")


def build_server(
    workspace: Workspace | Index, update_options: dict[str, Any] | None = None, debug: bool = False
) -> SymscopeServer:
    """The MCP server over one open workspace (or open index); the caller closes it."""
    _log_to_stderr()
    tools = Tools(Session(Workspace.of(workspace), update_options))
    specs: list[Tool] = []
    for name, (description, hints) in _TOOLS.items():
        tool = Tool.from_function(getattr(tools, name), name=name, description=description,
                                  annotations=hints, structured_output=False)
        specs.append(tool.model_copy(update={"parameters": compact_schema(tool.parameters)}))
    with _without_rich():
        server = SymscopeServer("symscope", instructions=INSTRUCTIONS, version=_version(), tools=specs)
    server.symscope = tools.session
    server.debug = debug or debug_requested()
    return server


def _exit_when_stdin_closes() -> None:
    """End the process `EXIT_GRACE` s after the client closes stdin (or SIGINT/SIGTERM), even mid-call.

    Closing stdin cancels a running call, whose work stops at its next check; a step that
    cannot check (walking the repo, starting parser processes) must not keep a server whose
    client is gone alive. A thread copies stdin into a pipe the SDK reads as fd 0, so it sees
    the end first; a signal ends that pipe the same way, so the SDK shuts down as on EOF
    (a bare SIGINT would leave its stdin reader blocked). Exiting mid-write is safe: SQLite
    rolls an unfinished write back on next open. POSIX only (it polls the pipe with select).
    """
    if os.name != "posix":
        return
    try:
        real = os.dup(0)
        read_end, write_end = os.pipe()
        os.dup2(read_end, 0)
        os.close(read_end)
    except OSError as exc:  # no usable stdin: the SDK reports that itself
        log.debug("cannot watch stdin (%s)", exc)
        return
    stop = threading.Event()

    def pump() -> None:
        import select

        try:
            while not stop.is_set():
                if not select.select([real], [], [], 0.1)[0]:
                    continue
                chunk = os.read(real, 1 << 16)
                if not chunk:
                    break
                view = memoryview(chunk)
                while view:
                    view = view[os.write(write_end, view):]
        except OSError:  # the client's end broke: the same as closing it
            pass
        os.close(write_end)
        time.sleep(EXIT_GRACE)
        log.info("stopped (a call was still running %.1f s after the client left)", EXIT_GRACE)
        logging.shutdown()
        os._exit(0)

    def on_signal(signum: int, frame: object) -> None:
        stop.set()  # nothing else here: a handler must not take locks the main thread may hold

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    threading.Thread(target=pump, name="symscope-stdin", daemon=True).start()


def serve(
    repo: str | os.PathLike[str],
    index_dir: str | os.PathLike[str] | None = None,
    max_files: int | None = None,
    allow_any_root: bool = False,
    debug: bool = False,
) -> int:
    """Serve `repo` over stdio until the client closes stdin; returns the exit code.

    The index is opened now (a bad repo or corrupt index fails at once) and built,
    if it never was, on the first call, so the handshake never waits for it. The repo is
    watched from the start (`Session.watch`, `SYMSCOPE_WATCH`): changed files are re-indexed
    in the background, and a call walks the repo only when the watcher cannot vouch. When
    stdin closes mid-call, the call is cancelled and the process ends within about
    `EXIT_GRACE` seconds even if its work does not stop.
    """
    _log_to_stderr()
    workspace = Workspace.open(repo, index_dir, ensure=False)
    try:
        options: dict[str, Any] = {"allow_any_root": allow_any_root}
        if max_files is not None:
            options["max_files"] = max_files
        server = build_server(workspace, options, debug)
        log.info("serving %s over stdio (index %s)", workspace.root, workspace.index_dir)
        server.symscope.watch()  # in the background: the handshake never waits for it
        _exit_when_stdin_closes()
        try:
            with contextlib.suppress(KeyboardInterrupt):
                anyio.run(server.run_stdio_async)
        finally:
            server.symscope.close()
    finally:
        workspace.close()
    log.info("stopped")
    return 0

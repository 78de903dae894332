"""Secrets in a bundle's text, found with Yelp's `detect-secrets` plugins and redacted.

A bundle is pasted into a chat, so a key in a symbol's source would leave the
machine. Before a bundle is copied, saved or printed its text goes through
`redact`, which replaces each finding with a visible marker naming its type,
`«redacted: AWS access key»`, and reports what it replaced.

The detectors are `detect-secrets` 1.5 plugins from an explicit list (`PLUGINS`),
used through their `analyze_string` API: no baseline files, no settings, and never
their `verify` step, which is the only part of the library that uses the network.
Two kinds of plugin are told apart:

* Specific formats (AWS, GitHub, GitLab, Slack, Stripe, OpenAI, PyPI, npm, ...
  tokens, private key blocks, JWTs, passwords in URLs): every match is redacted.
  Documented formats no plugin knows (GitHub fine-grained tokens, Square access
  tokens, Anthropic and Google keys...) are rows of one table, `FORMATS`; the
  README's secrets table lists every type, and a test plants each one.
* Generic ones: `KeywordDetector` (a quoted value assigned to `password`,
  `secret`, `api_key`...) and the high-entropy string detectors, the latter only
  in an assignment to a secret-sounding name (`token`, `password`, `secret`...),
  since a random-looking string alone is more often a hash or a test vector. In
  `.env` and YAML-like files values need no quotes, and are read without. Both
  pass through detect-secrets' own false-positive filters (templates like
  `{password}`, `$VAR`, `get_secret()`, UUIDs, sequences, ID fields).

A private key is redacted from its `BEGIN` line through its `END` line. Each
finding carries a fingerprint of the secret (a hash, never the text), so a front
end can let the user keep a given one on purpose (`keep`).

Every scan is linear in the text: a few plugin patterns that rescan a long run at
every start are replaced (`_LINEAR`), and widening never re-reads a run.

Importing `detect_secrets` costs 0.15-0.4 s (it pulls in `requests`), so this
module imports it on first use (`warm_up` does it ahead of time).
"""

from __future__ import annotations

import hashlib
import importlib
import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from detect_secrets.plugins.base import BasePlugin

#: (detect-secrets plugin module, class, label in the marker). The first plugin listed wins
#: when two findings overlap.
PLUGINS: tuple[tuple[str, str, str], ...] = (
    ("private_key", "PrivateKeyDetector", "private key"),
    ("aws", "AWSKeyDetector", "AWS access key"),
    ("github_token", "GitHubTokenDetector", "GitHub token"),
    ("gitlab_token", "GitLabTokenDetector", "GitLab token"),
    ("slack", "SlackDetector", "Slack token"),
    ("jwt", "JwtTokenDetector", "JSON web token"),
    ("stripe", "StripeDetector", "Stripe key"),
    ("openai", "OpenAIDetector", "OpenAI key"),
    ("pypi_token", "PypiTokenDetector", "PyPI token"),
    ("npm", "NpmDetector", "npm token"),
    ("sendgrid", "SendGridDetector", "SendGrid key"),
    ("twilio", "TwilioKeyDetector", "Twilio key"),
    ("azure_storage_key", "AzureStorageKeyDetector", "Azure storage key"),
    ("square_oauth", "SquareOAuthDetector", "Square OAuth secret"),
    ("discord", "DiscordBotTokenDetector", "Discord bot token"),
    ("telegram_token", "TelegramBotTokenDetector", "Telegram bot token"),
    ("mailchimp", "MailchimpDetector", "Mailchimp key"),
    ("basic_auth", "BasicAuthDetector", "password in a URL"),
    ("keyword", "KeywordDetector", "password or secret"),
    ("high_entropy_strings", "Base64HighEntropyString", "high-entropy secret"),
    ("high_entropy_strings", "HexHighEntropyString", "high-entropy secret"),
)
#: Documented formats detect-secrets 1.5 has no plugin for (or matches too narrowly), as
#: (label in the marker, pattern); scanned right after the format plugins. A pattern with a
#: group redacts that group only. Every repeat is bounded or ends the pattern, so a long line
#: cannot make one backtrack; each starts with its literal prefix (a boundary check follows it as
#: a lookbehind), which keeps `re`'s fast prefix search: 50x faster than a leading lookbehind.
FORMATS: tuple[tuple[str, str], ...] = (
    ("AWS access key",
     r"(?i:aws)[\w.\-]{0,24}(?i:key|secret)[\w.\-]{0,24}[\"']?\s{0,8}(?::=|=>|[=:])\s{0,8}[\"'`]?"
     r"([0-9A-Za-z/+]{40})(?![0-9A-Za-z/+=])"),
    ("GitHub token", r"github_pat_[A-Za-z0-9_]{82}"),
    ("OpenAI key", r"sk-(?:proj|svcacct|admin)-[A-Za-z0-9_\-]{40,}"),
    ("Anthropic key", r"sk-ant-[a-z]{2,8}[0-9]{0,3}-[A-Za-z0-9_\-]{32,}"),
    ("npm token", r"npm_(?<![A-Za-z0-9_]npm_)(?=[A-Za-z]{0,35}[0-9])[A-Za-z0-9]{36}(?![A-Za-z0-9_])"),
    ("Square access token", r"sq0atp-[A-Za-z0-9_\-]{22}"),
    ("Square access token", r"EAAA(?<![A-Za-z0-9+/_\-]EAAA)[A-Za-z0-9_\-]{56,96}(?![A-Za-z0-9+/=_\-])"),
    ("Google API key", r"AIza(?<![A-Za-z0-9_\-]AIza)[0-9A-Za-z_\-]{35}(?![A-Za-z0-9_\-])"),
    ("Hugging Face token", r"hf_(?<![A-Za-z0-9_]hf_)[A-Za-z]{34}(?![A-Za-z0-9_])"),
)
#: detect-secrets patterns that backtrack over one long run of their own characters (on a 1 MB
#: line, minutes), rewritten to scan each run once: a match starts only where a run begins, or
#: its repeats are bounded. On ordinary text they find what the plugin's own patterns find.
_LINEAR: dict[str, tuple[str, ...]] = {
    "OpenAIDetector": (r"sk-(?<![A-Za-z0-9_\-]sk-)[A-Za-z0-9_\-]*[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}",),
    "JwtTokenDetector": (r"eyJ(?<![A-Za-z0-9_\-]eyJ)[A-Za-z0-9_\-]+=*\.eyJ[A-Za-z0-9_\-]+=*",),
    "NpmDetector": (r"/:_authToken=[ \t]{0,16}(npm_[^\s'\"]+|[A-Fa-f0-9\-]{36})",),
}
#: How far a token or a JWT is widened past its pattern's match (the longest real ones are ~1 KB).
_TAIL_MAX = 8192
#: A key body line longer than this is not one (PEM lines are 64 characters).
_KEY_LINE_MAX = 512
#: The `_Plugin.name` of the `FORMATS` rows.
_OWN = "FORMATS"
#: Plugins whose findings are filtered for false positives (the rest match exact formats).
_GENERIC = frozenset({"KeywordDetector", "Base64HighEntropyString", "HexHighEntropyString"})
_ENTROPY = frozenset({"Base64HighEntropyString", "HexHighEntropyString"})
#: Names that make a high-entropy string in an assignment a secret, besides detect-secrets'
#: own keyword list (`password`, `secret`, `api_key`, ...).
_EXTRA_SECRET_NAMES = ("token", "credential", "bearer")
#: detect-secrets scans line by line; for its keyword and entropy patterns, which can
#: backtrack, longer lines are split into windows this long (overlapping by `_OVERLAP`).
_WINDOW = 4000
_OVERLAP = 400
#: Format detectors whose patterns capture the secret value in group 1 (the rest names it).
_VALUE_GROUP = frozenset({"AWSKeyDetector", "BasicAuthDetector", "NpmDetector"})
#: A config line's unquoted value (`KEY=value`, `key: value`): anchored, so it cannot backtrack far.
_CONFIG_VALUE = re.compile(r"[ \t]*(?:export[ \t]+)?[\w.\-]+[ \t]*[=:][ \t]*([^\s'\"]{16,})[ \t]*$")
#: A token's characters: a format match is widened over them (a longer token than the pattern's).
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-]*")
#: A JWT's characters: its signature part, which the plugin's lazy pattern leaves out.
_JWT_TAIL = re.compile(r"[A-Za-z0-9_\-+/=.]*")
_KEY_END = re.compile(r"-----END[A-Z0-9 ]*PRIVATE KEY[A-Z ]*-*|END PGP PRIVATE KEY BLOCK-*")
#: A line of a private key's body (base64, perhaps quoted or escaped in a string literal).
_KEY_BODY = re.compile(r"""[\s"'`+,;(){}\[\]\\n]*[A-Za-z0-9+/=]{16,}[\s"'`+,;(){}\[\]\\n]*$""")


@dataclass(frozen=True, slots=True)
class Finding:
    """One secret found in a text: where, what type, and a fingerprint (never the secret)."""

    start: int
    """Offset of the redacted span in the scanned text."""
    end: int
    line: int
    """1-based line of the span's start in the scanned text."""
    type: str
    """The detect-secrets plugin's `secret_type`, e.g. `AWS Access Key`."""
    label: str
    """What the marker says, e.g. `AWS access key`."""
    fingerprint: str
    """First 16 hex digits of the SHA-256 of the redacted text: to keep it on purpose."""


def marker(label: str) -> str:
    """The visible text that replaces a secret."""
    return f"«redacted: {label}»"


@dataclass(frozen=True, slots=True)
class _Plugin:
    name: str
    label: str
    detector: BasePlugin
    scan: Callable[[str, str], Iterator[str]] | None
    """Generic plugins: (line, filename) -> the secret values the plugin reports on that line."""


@cache
def _plugins() -> tuple[_Plugin, ...]:
    from detect_secrets import plugins as ds_plugins  # 0.15-0.4 s: only when a bundle is scanned

    out: list[_Plugin] = []
    for module_name, name, label in PLUGINS:
        if name in _GENERIC and not any(p.name == _OWN for p in out):
            out.extend(_own_formats())
        try:
            cls = getattr(importlib.import_module(f"detect_secrets.plugins.{module_name}"), name)
        except (ImportError, AttributeError):  # a later detect-secrets moved it: scan with the others
            continue
        detector: Any = cls()
        if name in _LINEAR:
            detector.denylist = tuple(re.compile(p) for p in _LINEAR[name])
        out.append(_Plugin(name, label, detector, _scanner(name, detector, ds_plugins)))
    return tuple(out)


@dataclass(frozen=True, slots=True)
class _FormatDetector:
    """A `FORMATS` row shaped like a detect-secrets format plugin (`denylist`, `secret_type`)."""

    secret_type: str
    denylist: tuple[re.Pattern[str], ...]


def _own_formats() -> list[_Plugin]:
    by_label: dict[str, list[re.Pattern[str]]] = {}
    for label, pattern in FORMATS:
        by_label.setdefault(label, []).append(re.compile(pattern))
    return [_Plugin(_OWN, label, _FormatDetector(label, tuple(patterns)), None)  # type: ignore[arg-type]
            for label, patterns in by_label.items()]


def _is_config(filename: str) -> bool:
    """A file of `key = value` or `key: value` lines, where values need no quotes (.env, YAML...)."""
    from detect_secrets.util.filetype import FileType, determine_file_type

    base = filename.replace("\\", "/").rsplit("/", 1)[-1].lower()
    if base == ".env" or base.startswith(".env.") or base.endswith(".env"):
        return True
    return determine_file_type(filename) in {
        FileType.YAML, FileType.CONFIG, FileType.INI, FileType.PROPERTIES, FileType.TOML}


def _scanner(name: str, detector: Any, ds_plugins: Any) -> Callable[[str, str], Iterator[str]] | None:
    if name not in _GENERIC:
        return None  # format detectors are matched with their `denylist` patterns (`_format_spans`)
    if name == "KeywordDetector":
        from detect_secrets.util.filetype import determine_file_type

        keyword = ds_plugins.keyword
        table = getattr(keyword, "REGEX_BY_FILETYPE", {})
        default = getattr(keyword, "QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP", None)

        config = getattr(keyword, "CONFIG_DENYLIST_REGEX_TO_GROUP", default)

        def keywords(line: str, filename: str) -> Iterator[str]:
            # What `KeywordDetector.analyze_line` does, minus its settings lookup, and with
            # `.env` files read as config files (unquoted values).
            regexes = config if _is_config(filename) else table.get(determine_file_type(filename), default)
            yield from detector.analyze_string(line, denylist_regex_to_group=regexes)

        return keywords

    charset = frozenset(getattr(detector, "charset", ""))

    def entropic(line: str, filename: str) -> Iterator[str]:
        values = list(detector.analyze_string(line))
        if _is_config(filename):  # `token: 8f7a...` needs no quotes in YAML or .env
            m = _CONFIG_VALUE.match(line)
            if m is not None and charset.issuperset(m.group(1)):
                values.append(m.group(1))
        for value in values:
            if detector.calculate_shannon_entropy(value) > detector.entropy_limit:
                yield value

    return entropic


@cache
def _secret_name() -> re.Pattern[str]:
    """A secret-sounding name followed by an assignment or a colon."""
    return re.compile(r"(?:" + "|".join(_secret_words()) + r")[^=:\n]{0,40}?(?::=|=>|[=:])", re.IGNORECASE)


@cache
def _secret_words() -> tuple[str, ...]:
    from detect_secrets.plugins import keyword

    return (*getattr(keyword, "DENYLIST", ("password", "secret", "api_?key")), *_EXTRA_SECRET_NAMES)


@cache
def _names() -> re.Pattern[str]:
    """Any secret-sounding name, in lower case (KeywordDetector's keywords and ours)."""
    return re.compile("|".join(_secret_words()))


@cache
def _false_positive_filters() -> tuple[Callable[[str, str, Any], bool], ...]:
    """detect-secrets' default heuristic filters, as (secret, line, plugin) -> filtered out."""
    from detect_secrets.filters import heuristic as h

    return (
        lambda s, line, p: h.is_sequential_string(s),
        lambda s, line, p: h.is_potential_uuid(s),
        lambda s, line, p: h.is_likely_id_string(s, line, p),
        lambda s, line, p: h.is_templated_secret(s),
        lambda s, line, p: h.is_prefixed_with_dollar_sign(s),
        lambda s, line, p: h.is_indirect_reference(line),
        lambda s, line, p: h.is_not_alphanumeric_string(s),
    )


def _windows(line: str) -> Iterator[tuple[int, str]]:
    if len(line) <= _WINDOW:
        yield 0, line
        return
    step = _WINDOW - _OVERLAP
    for start in range(0, len(line), step):
        yield start, line[start : start + _WINDOW]
        if start + _WINDOW >= len(line):
            return


def _lines(text: str) -> list[tuple[int, str]]:
    """(offset, line without its newline) for every line of `text`."""
    out: list[tuple[int, str]] = []
    offset = 0
    for line in text.splitlines(keepends=True):
        out.append((offset, line.rstrip("\r\n")))
        offset += len(line)
    return out


def _spans(
    plugin: _Plugin, text: str, lines: list[tuple[int, str]], named: list[tuple[int, str]], filename: str
) -> list[tuple[int, int]]:
    """Where `plugin` finds secrets in `text`, as (start, end) offsets.

    `named` are the lines that mention a secret-sounding name: every KeywordDetector
    pattern contains one of its keywords, and entropy findings count only after such
    a name, so the generic plugins look at those lines alone.
    """
    if plugin.scan is None:
        return _format_spans(plugin, text, lines)
    out: list[tuple[int, int]] = []
    for offset, full_line in named:
        for shift, line in _windows(full_line):
            if len(full_line) > _WINDOW and not _names().search(line.lower()):
                continue  # a long line's window with no secret-sounding name holds no finding
            base = offset + shift
            # Entropy findings count after a secret-sounding name. The leftmost such
            # assignment ends first, so one search per window says where they may start.
            allowed = 0
            if plugin.name in _ENTROPY:
                first = _secret_name().search(line)
                allowed = len(line) + 1 if first is None else first.end()
            # Each value once: a window that repeats one value many times stays linear.
            for value in dict.fromkeys(plugin.scan(line, filename)):
                if not value or _filtered(plugin, value, line):
                    continue
                out.extend((base + m.start(), base + m.end())
                           for m in re.finditer(re.escape(value), line) if m.start() >= allowed)
    return out


def _named_lines(text: str, lines: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The lines that contain a secret-sounding name (matched on lower case: 6x faster)."""
    lowered = text.lower()
    pattern = _names()
    if len(lowered) != len(text):  # a few characters change length when lowered
        lowered, pattern = text, re.compile(pattern.pattern, re.IGNORECASE)
    starts = [offset for offset, _ in lines]
    wanted = sorted({bisect_right(starts, m.start()) - 1 for m in pattern.finditer(lowered)})
    return [lines[i] for i in wanted if i >= 0]


def _format_spans(plugin: _Plugin, text: str, lines: list[tuple[int, str]]) -> list[tuple[int, int]]:
    """Matches of a format detector's `denylist` patterns: the whole token, or its value group."""
    patterns = [p for p in getattr(plugin.detector, "denylist", ()) if p.search(text)]
    if not patterns:
        return []
    value_group = plugin.name in _VALUE_GROUP or plugin.name == _OWN
    out: list[tuple[int, int]] = []
    covered = dict.fromkeys(patterns, -1)  # how far each pattern's last widening looked
    for offset, line in lines:  # whole lines: these patterns do not backtrack (`_LINEAR`)
        for pattern in patterns:
            for m in pattern.finditer(line):
                grouped = bool(value_group and pattern.groups and m.group(1))
                start, end = m.span(1) if grouped else m.span()
                if offset + start < covered[pattern]:
                    continue  # inside a secret already widened over, or a run already judged
                if grouped:
                    span: tuple[int, int] | None = (offset + start, offset + end)
                    reach = offset + end
                else:
                    span, reach = _widen(plugin, text, offset + start, offset + end)
                if span is not None:
                    out.append(span)
                covered[pattern] = reach
    return out


def _filtered(plugin: _Plugin, value: str, line: str) -> bool:
    return any(f(value, line, plugin.detector) for f in _false_positive_filters())


def _widen(plugin: _Plugin, text: str, start: int, end: int) -> tuple[tuple[int, int] | None, int]:
    """The whole secret around a pattern's match (a key block, a token's full tail), if it is one,
    and how far it looked: a later match before there is part of the same run, already judged."""
    if plugin.name == "PrivateKeyDetector":
        while start > 0 and text[start - 1] == "-":
            start -= 1
        found = _KEY_END.search(text, end, end + 20_000)
        if found is not None:
            return (start, found.end()), found.end()
        line_end = text.find("\n", end)
        end = len(text) if line_end < 0 else line_end
        while end < len(text):  # no END line: take the base64 body lines that follow
            nxt = text.find("\n", end + 1, end + 2 + _KEY_LINE_MAX)
            nxt = (len(text) if len(text) - end <= _KEY_LINE_MAX + 1 else -1) if nxt < 0 else nxt
            if nxt < 0 or not _KEY_BODY.match(text, end + 1, nxt):
                break
            end = nxt
        return (start, end), end
    if plugin.name == "JwtTokenDetector":  # its pattern stops before the signature
        tail = _JWT_TAIL.match(text, end, end + _TAIL_MAX)
        whole = end if tail is None else tail.end()
        valid: Callable[[str], bool] = getattr(plugin.detector, "is_formally_valid")  # noqa: B009
        if valid(text[start:whole].rstrip(".")):
            return (start, whole), whole
        return ((start, end) if valid(text[start:end].rstrip(".")) else None), whole
    if plugin.name in _VALUE_GROUP:
        return (start, end), end
    tail = _TOKEN_TAIL.match(text, end, end + _TAIL_MAX)
    end = end if tail is None else tail.end()
    return (start, end), end


def find_secrets(text: str, filename: str = "") -> list[Finding]:
    """Every secret in `text`, in order, overlaps merged (the first plugin in `PLUGINS` names it).

    Args:
        text: Any text; scanned line by line, as detect-secrets does.
        filename: The file the text comes from, if any: its extension picks
            KeywordDetector's rules (Go's `:=`, YAML's `key: value`...).
    """
    lines = _lines(text)
    named = _named_lines(text, lines)
    found: list[tuple[int, int, int, _Plugin]] = []
    for rank, plugin in enumerate(_plugins()):
        found.extend((start, end, rank, plugin) for start, end in _spans(plugin, text, lines, named, filename))
    found.sort(key=lambda f: (f[0], f[2]))
    merged: list[list[Any]] = []
    for start, end, rank, plugin in found:
        if merged and start < merged[-1][1]:
            last = merged[-1]
            last[1] = max(last[1], end)
            if rank < last[2]:
                last[2], last[3] = rank, plugin
            continue
        merged.append([start, end, rank, plugin])
    out: list[Finding] = []
    line, counted = 1, 0
    for start, end, _, plugin in merged:
        secret = text[start:end]
        line, counted = line + text.count("\n", counted, start), start  # in order: linear
        out.append(Finding(
            start, end, line, plugin.detector.secret_type, plugin.label,
            hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:16],
        ))
    return out


def redact(text: str, filename: str = "", keep: Collection[str] = ()) -> tuple[str, list[Finding]]:
    """`text` with every secret replaced by `marker(label)`; returns (text, the findings replaced).

    Args:
        text: The text to clean.
        filename: Its file, for KeywordDetector's per-language rules.
        keep: Fingerprints of findings to leave in on purpose (they are not returned).
    """
    findings = [f for f in find_secrets(text, filename) if f.fingerprint not in keep]
    if not findings:
        return text, []
    parts: list[str] = []
    at = 0
    for f in findings:
        parts.append(text[at : f.start])
        parts.append(marker(f.label))
        at = f.end
    parts.append(text[at:])
    return "".join(parts), findings


def warm_up() -> None:
    """Import detect-secrets now (a front end can do this in a background thread)."""
    _plugins()
    _secret_name()
    _names()
    _false_positive_filters()


def count_secrets(text: str, filename: str = "") -> int:
    """How many secrets `redact` would replace in `text`: for a face that shows text exactly."""
    return len(find_secrets(text, filename))


def describe(findings: Collection[Finding]) -> str:
    """`2 likely secrets (AWS access key, GitHub token)`: a count and the distinct types, in order."""
    labels = ", ".join(dict.fromkeys(f.label for f in findings))
    noun = "secret" if len(findings) == 1 else "secrets"
    return f"{len(findings)} likely {noun} ({labels})"

"""Small, pure formatting helpers shared by the panes (no Textual imports)."""

from __future__ import annotations

import math
import os

from symscope.core.models import Stats

TIMES = "\u00d7"
"""Multiplication sign for ratios."""
MINUS = "\u2212"
"""Minus sign for savings."""
DASH = "\u2013"

#: Environment variable with the price in dollars per million input tokens.
PRICE_ENV = "SYMSCOPE_PRICE_PER_MTOK"
DEFAULT_PRICE_PER_MTOK = 3.00

#: Short, fixed-width labels for symbol kinds.
KIND_LABELS: dict[str, str] = {
    "function": "fn",
    "method": "meth",
    "class": "class",
    "struct": "struct",
    "interface": "iface",
    "trait": "trait",
    "enum": "enum",
    "type": "type",
    "constant": "const",
    "module": "mod",
    "file": "file",
}


def kind_label(kind: str) -> str:
    """A short label for a symbol kind (`function` -> `fn`)."""
    return KIND_LABELS.get(kind, kind[:6])


def tokens(n: int) -> str:
    """An exact token count with thousands separators: `12,345`."""
    return f"{n:,}"


def ratio(x: float) -> str:
    """A size ratio: `7.4x`, `1,234x` (with a multiplication sign)."""
    if x <= 0:
        return DASH
    if x >= 100:
        return f"{x:,.0f}{TIMES}"
    return f"{x:.1f}{TIMES}"


def pct(x: float) -> str:
    """A saving percentage: `86.5%`, `99.97%` when close to 100."""
    if 99.5 <= x < 100:
        return f"{x:.2f}%"
    return f"{x:.1f}%"


def saved(x: float) -> str:
    """A compact saving: minus 86.5% when smaller, `+14.9%` when larger."""
    return f"{MINUS}{pct(x)}" if x >= 0 else f"+{pct(-x)}"


def money(dollars: float) -> str:
    """Dollars with two significant digits for small amounts: `$0.000027`, `$0.0013`, `$1.23`."""
    if dollars <= 0:
        return "$0"
    if dollars >= 1:
        return f"${dollars:,.2f}"
    decimals = min(8, max(2, -math.floor(math.log10(dollars)) + 1))
    return f"${dollars:.{decimals}f}"


def cost(n_tokens: int, price_per_mtok: float) -> float:
    """Cost in dollars of `n_tokens` at `price_per_mtok` dollars per million."""
    return n_tokens * price_per_mtok / 1_000_000


def parse_price(text: str) -> float | None:
    """A price per million tokens from user text (`3`, `$3.00`, `0.25`), None if invalid."""
    cleaned = text.strip().lstrip("$").replace(",", "").strip()
    try:
        value = float(cleaned)
    except ValueError:
        return None
    if value < 0 or value != value or value > 1_000_000:
        return None
    return value


def parse_budget(text: str) -> int | None:
    """A token budget from user text (`2000`, `2,000`, `2k`), None if it is not a positive number."""
    cleaned = text.strip().lower().replace(",", "").replace("_", "").removesuffix("tokens").removesuffix("tok")
    cleaned = cleaned.strip()
    scale = 1
    if cleaned.endswith("k"):
        cleaned, scale = cleaned[:-1], 1000
    try:
        value = float(cleaned) * scale
    except ValueError:
        return None
    if value != value or value < 1 or value > 100_000_000 or value != int(value):
        return None
    return int(value)


def price_from_env() -> tuple[float, str | None]:
    """The price from $SYMSCOPE_PRICE_PER_MTOK (or the default) and a warning if it was bad."""
    raw = os.environ.get(PRICE_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_PRICE_PER_MTOK, None
    value = parse_price(raw)
    if value is None:
        return DEFAULT_PRICE_PER_MTOK, (
            f"ignoring {PRICE_ENV}={raw!r}: not a price; using ${DEFAULT_PRICE_PER_MTOK:.2f}/Mtok"
        )
    return value, None


def stats_line(stats: Stats | None, updating: bool) -> str:
    """The header's summary of the index: files, symbols and tokens."""
    if stats is None:
        return "indexing…"
    text = f"{stats.files:,} files · {stats.symbols:,} symbols · {stats.tokens:,} tokens"
    return text + (" · updating…" if updating else "")

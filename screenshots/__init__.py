"""Screenshots of the TUI for the README (`make screenshots`)."""

from __future__ import annotations

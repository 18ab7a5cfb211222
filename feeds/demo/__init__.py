"""The built-in demo conference: five Sched pages of PyTorch Conference Europe 2026 (Paris)."""

from __future__ import annotations

from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent / "pages"
DEMO_TZ = "Europe/Paris"


def demo_sources() -> list[str]:
    return [str(p) for p in sorted(DEMO_DIR.glob("*.txt"))]

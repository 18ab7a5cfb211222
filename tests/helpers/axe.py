"""axe-core (npm, tests/browser/node_modules) as the browser tests run it: the script, the rule
tags checked, and the call that returns the violations."""

from __future__ import annotations

from pathlib import Path

AXE = Path(__file__).resolve().parents[1] / "browser" / "node_modules" / "axe-core" / "axe.min.js"
TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22aa", "best-practice"]
RUN = """
options => axe.run(document, options).then(result => result.violations.map(v => ({
  id: v.id, impact: v.impact, help: v.help,
  nodes: v.nodes.slice(0, 3).map(n => n.target.join(" ") + " :: " + n.failureSummary)
})))
"""

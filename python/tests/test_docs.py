"""docs/python.md's worked example runs as written (from the repo root)."""

import os
import re

import pytest

from conftest import REPO

pytestmark = pytest.mark.compiler


def test_worked_example(monkeypatch, capsys):
    text = (REPO / "docs" / "python.md").read_text()
    blocks = re.findall(r"```python\n# docs-example[^\n]*\n(.*?)```", text, re.S)
    assert len(blocks) == 1, "docs/python.md lost its worked example"
    monkeypatch.chdir(REPO)
    exec(compile(blocks[0], "docs/python.md", "exec"), {})
    assert "ms per run" in capsys.readouterr().out

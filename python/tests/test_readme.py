"""The README's Python example runs as written."""

from __future__ import annotations

import os
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_readme_python_example_runs(tmp_path):
    text = (ROOT / "README.md").read_text()
    section = text[text.index("## Python"):]
    blocks = re.findall(r"```python\n(.*?)```", section, re.S)
    assert blocks, "README.md has no Python example"
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(blocks[0], "README.md", "exec"), {})
    finally:
        os.chdir(cwd)
    assert (tmp_path / "keys.bkf").exists()

"""The README's Python examples, as a user runs them: each fenced ``python`` block is
written to a file and run with this interpreter as a script, in an empty folder, with the
environment a user has (no PYSPARK_PYTHON, no activated venv on PATH).

A block that starts with ``# continues the Spark example`` (or Dask) runs appended to the
latest Spark (Dask) block before it: README's sharded example uses the Spark example's
session and frames. Where a
line ends in ``# -> TEXT``, TEXT is what the script prints there: the lines the script
prints must be exactly those texts, in order. Used by python/tests/test_readme.py (blocks
that need no engine) and python/tests_engines/test_readme_engines.py (Spark and Dask).
"""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys
from dataclasses import dataclass

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


@dataclass
class Example:
    line: int  # README line of the block's first code line
    code: str  # the script: the block, after the block it continues, if any

    @property
    def engine(self) -> str | None:
        """"spark" or "dask" for the blocks the engines step runs, else None."""
        if "pyspark" in self.code or "bloomkit.spark" in self.code:
            return "spark"
        if "dask" in self.code:
            return "dask"
        return None

    @property
    def expected(self) -> list[str]:
        return [m.group(1).rstrip() for m in re.finditer(r"# -> (.*)$", self.code, re.M)]


def examples() -> list[Example]:
    text = README.read_text(encoding="utf-8")
    found: list[Example] = []
    for m in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M):
        code = m.group(1)
        line = text.count("\n", 0, m.start(1)) + 1
        follows = re.match(r"# continues the (\w+) example", code)
        if follows:
            engine = follows.group(1).lower()
            at = max(i for i, e in enumerate(found) if e.engine == engine)
            found[at] = Example(found[at].line, found[at].code + "\n" + code)
        else:
            found.append(Example(line, code))
    return found


def user_environment() -> dict[str, str]:
    """This process's environment less what a test harness or an activated venv would add."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYSPARK_PYTHON", "PYSPARK_DRIVER_PYTHON", "VIRTUAL_ENV", "PYTHONPATH")}
    venv_bin = str(pathlib.Path(sys.executable).parent)
    env["PATH"] = os.pathsep.join(p for p in env.get("PATH", "").split(os.pathsep) if p and p != venv_bin)
    return env


def run(example: Example, folder: pathlib.Path, timeout: float = 600) -> None:
    """Runs the example as a script in `folder`; fails with its output unless it exits 0
    and prints exactly its ``# ->`` lines."""
    script = folder / f"readme_line_{example.line}.py"
    script.write_text(example.code, encoding="utf-8")
    done = subprocess.run([sys.executable, script.name], cwd=folder, env=user_environment(),
                          capture_output=True, text=True, timeout=timeout)
    where = f"README.md:{example.line}"
    assert done.returncode == 0, f"{where} exited {done.returncode}\n{done.stdout}\n{done.stderr[-4000:]}"
    printed = [s.rstrip() for s in done.stdout.splitlines()]
    assert printed == example.expected, f"{where} printed {printed}, README shows {example.expected}"

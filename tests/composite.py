"""A composite action's shell steps, run the way a GitHub runner runs them.

GitHub is not reachable from the tests, so this plays the runner for
action.yml: it substitutes the ``${{ }}`` expressions the runner would (the
action's inputs, ``runner.temp``, ``github.action_path``, earlier steps'
outputs), evaluates the ``if:`` conditions, and runs each ``run:`` script with
``bash --noprofile --norc -eo pipefail``, the runner's command for ``shell:
bash``, with ``GITHUB_OUTPUT``, ``GITHUB_STEP_SUMMARY`` and ``RUNNER_TEMP`` set.
``uses:`` steps are not run (their actions are GitHub's); their evaluated
``with:`` is kept, so a test can check what they would have received.  An
expression this module does not know fails the run: action.yml cannot grow a
construct the tests do not play.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

if TYPE_CHECKING:
    from collections.abc import Collection, Mapping

__all__ = ["Result", "Runner", "clean_env"]

_EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}")
_OUTPUT = re.compile(r"steps\.([\w-]+)\.outputs\.([\w-]+)")


@dataclass
class Result:
    """What a run left: exit statuses, outputs, the job summary, skipped ``uses``."""

    statuses: dict[str, int] = field(default_factory=dict)  # step name -> status
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)  # by step id
    uses: dict[str, dict[str, str]] = field(default_factory=dict)  # action -> with
    summary: str = ""

    @property
    def status(self) -> int:
        """The first failing step's status, else 0."""
        return next((s for s in self.statuses.values() if s), 0)


@dataclass
class Runner:
    """The runner for one job: the action, its inputs, the base environment."""

    action: Path
    inputs: Mapping[str, str]
    env: Mapping[str, str]  # PATH first: what setup-python would have put there
    workspace: Path
    temp: Path

    def _steps(self) -> list[dict[str, Any]]:
        loaded = yaml.safe_load(self.action.read_text("utf-8"))
        assert loaded["runs"]["using"] == "composite"
        steps: list[dict[str, Any]] = loaded["runs"]["steps"]
        return steps

    def _inputs(self) -> dict[str, str]:
        declared = yaml.safe_load(self.action.read_text("utf-8"))["inputs"]
        unknown = set(self.inputs) - set(declared)
        assert not unknown, f"not inputs of {self.action.name}: {unknown}"
        missing = [
            k for k, v in declared.items() if v.get("required") and k not in self.inputs
        ]
        assert not missing, f"required inputs missing: {missing}"
        values = {k: str(v.get("default", "")) for k, v in declared.items()}
        return values | dict(self.inputs)

    def _value(self, expression: str, inputs: dict[str, str], result: Result) -> str:
        expression = expression.strip()
        if expression.startswith("inputs."):
            return inputs[expression.removeprefix("inputs.")]
        if expression == "runner.temp":
            return str(self.temp)
        if expression == "github.action_path":
            return str(self.action.parent)
        if match := _OUTPUT.fullmatch(expression):
            return result.outputs.get(match[1], {}).get(match[2], "")
        raise ValueError(
            f"an expression the simulated runner does not know: {expression}"
        )

    def _substitute(self, text: object, inputs: dict[str, str], result: Result) -> str:
        return _EXPRESSION.sub(lambda m: self._value(m[1], inputs, result), str(text))

    def _condition(
        self, condition: str, inputs: dict[str, str], result: Result
    ) -> bool:
        condition = condition.strip()
        if match := re.fullmatch(r"inputs\.([\w-]+) == '(.*)'", condition):
            return inputs[match[1]] == match[2]
        if match := re.fullmatch(r"always\(\) && (steps\.\S+) != ''", condition):
            return self._value(match[1], inputs, result) != ""
        raise ValueError(f"a condition the simulated runner does not know: {condition}")

    def run(self, names: Collection[str] | None = None) -> Result:
        """Run the steps (only those named in ``names``, by name or id, if given)."""
        inputs, result = self._inputs(), Result()
        self.temp.mkdir(parents=True, exist_ok=True)
        summary = self.temp / "step-summary.md"
        failed = False
        for index, step in enumerate(self._steps()):
            name = str(step.get("name") or step.get("id") or step.get("uses"))
            if names is not None and not {name, step.get("id")} & set(names):
                continue
            condition = str(step.get("if", "success()"))
            if failed and "always()" not in condition:
                continue
            if "if" in step and not self._condition(condition, inputs, result):
                continue
            if "uses" in step:
                result.uses[step["uses"].split("@")[0]] = {
                    key: self._substitute(value, inputs, result)
                    for key, value in step.get("with", {}).items()
                }
                continue
            assert step["shell"] == "bash", step
            assert "${{" not in step["run"], "inputs reach scripts through env only"
            script = self.temp / f"step-{index}.sh"
            script.write_text(step["run"], "utf-8")
            output = self.temp / f"output-{index}"
            output.touch()
            env = {
                **self.env,
                "CI": "true",
                "GITHUB_ACTIONS": "true",
                "GITHUB_ACTION_PATH": str(self.action.parent),
                "GITHUB_WORKSPACE": str(self.workspace),
                "GITHUB_OUTPUT": str(output),
                "GITHUB_STEP_SUMMARY": str(summary),
                "RUNNER_TEMP": str(self.temp),
                **{
                    key: self._substitute(value, inputs, result)
                    for key, value in step.get("env", {}).items()
                },
            }
            done = subprocess.run(
                # the runner's command for `shell: bash`, bash found on PATH
                ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],  # noqa: S607
                cwd=self.workspace, env=env, timeout=1800, check=False,
            )  # fmt: skip
            result.statuses[name] = done.returncode
            failed = failed or done.returncode != 0
            if "id" in step:
                lines = output.read_text("utf-8").splitlines()
                result.outputs[step["id"]] = dict(
                    line.split("=", 1) for line in lines if "=" in line
                )
        result.summary = summary.read_text("utf-8") if summary.exists() else ""
        return result


def clean_env(venv: Path) -> dict[str, str]:
    """This process's environment with ``venv`` first on PATH and no other venv.

    What a job has after setup-python: ``python`` and ``pip`` are the fresh
    interpreter's, and nothing of this checkout's development environment
    (its venv's programs, PYTHONPATH) leaks in.
    """
    own = str(Path(sys.executable).parent)
    path = [p for p in os.environ.get("PATH", "").split(os.pathsep) if p and p != own]
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"VIRTUAL_ENV", "PYTHONPATH", "PYTHONHOME"}
        and not k.startswith(("STSPEC_", "PYTEST_"))
    }
    env["PATH"] = os.pathsep.join([str(venv / "bin"), *path])
    return env

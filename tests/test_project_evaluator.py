"""dbt-project-evaluator on a scratch copy of the project, as a team runs it on its own: every
rule's findings are zero except the exceptions recorded, with their reasons, in
tests/evaluator/dbt_project_evaluator_exceptions.csv (the evaluator's own exceptions seed).

The evaluator and the dbt-utils it needs are vendored in tests/evaluator/packages/ (CI machines
reach no dbt package hub; tests/evaluator/README.md names their versions) and installed by local
path. This project's own primary-key test (`incentives.test_unique_combination`) is registered
through the evaluator's `primary_key_test_macros` var, and the rule seeds are checked too
(`enforced_primary_key_node_types`).
"""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import duckdb
import pytest

from compiler.run.build import PROJECT_DIR
from tests.test_dbt_package import copy_project, invoke_dbt

EVALUATOR = PROJECT_DIR / "tests" / "evaluator"

EVALUATOR_VARS = {
    "primary_key_test_macros": [["dbt.test_unique", "dbt.test_not_null"],
                                ["dbt_utils.test_unique_combination_of_columns"],
                                ["incentives.test_unique_combination"]],
    "enforced_primary_key_node_types": ["model", "seed"],
}


def _scratch_project(root: Path) -> Path:
    """The project with the compiled example, the two vendored packages installed by path and the
    evaluator's exceptions seed in the project's own seeds (the package's is disabled)."""
    copy = copy_project(root / "project")
    shutil.copy(EVALUATOR / "dbt_project_evaluator_exceptions.csv", copy / "seeds")
    project = (copy / "dbt_project.yml").read_text()
    assert "\nseeds:\n  incentives:\n" in project
    project = project.replace("\nseeds:\n", "\nseeds:\n  dbt_project_evaluator:\n    dbt_project_evaluator_exceptions:\n"
                                            "      +enabled: false\n", 1)
    (copy / "dbt_project.yml").write_text(project)
    packages = "packages:\n" + "".join(f"  - local: {EVALUATOR / 'packages' / name}\n"
                                       for name in ("dbt_utils", "dbt_project_evaluator"))
    (copy / "packages.yml").write_text(packages)
    return copy


def test_the_project_evaluator_finds_nothing_beyond_the_recorded_exceptions(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    project = _scratch_project(tmp_path)
    database = tmp_path / "evaluator.duckdb"
    monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", str(database))
    ok, failed = invoke_dbt(["deps"], project)
    assert ok, failed
    dbt_vars = json.dumps(EVALUATOR_VARS)
    ok, failed = invoke_dbt(["build", "--target", "duckdb", "--vars", dbt_vars,
                             "--select", "package:dbt_project_evaluator", "dbt_project_evaluator_exceptions"], project)
    assert ok, f"the evaluator's build failed: {failed}"
    results = json.loads((project / "target" / "run_results.json").read_text())["results"]
    findings = {r["unique_id"]: r.get("message") for r in results
                if r["unique_id"].startswith("test.dbt_project_evaluator.") and r["status"] != "pass"}
    details = []
    if findings:
        manifest = json.loads((project / "target" / "manifest.json").read_text())
        with duckdb.connect(str(database), read_only=True) as con:
            for unique_id in sorted(findings):
                model = _tested_model(manifest, unique_id)
                rows = con.execute(f"select * from {model}").fetchall() if model else []
                details.append(f"{unique_id}: {findings[unique_id]} {rows[:10]}")
    assert not findings, "dbt-project-evaluator findings beyond tests/evaluator/dbt_project_evaluator_exceptions.csv:\n" \
        + "\n".join(details)


def _tested_model(manifest: dict, unique_id: str) -> str | None:
    """The relation of the evaluator model a test of it reads (to print its rows)."""
    node = manifest["nodes"].get(unique_id, {})
    for parent in node.get("depends_on", {}).get("nodes", []):
        model = manifest["nodes"].get(parent)
        if model and model["resource_type"] == "model":
            return f"{model['schema']}.{model['alias']}"
    return None


def test_every_exception_says_why() -> None:
    with (EVALUATOR / "dbt_project_evaluator_exceptions.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert rows and all(r["comment"].strip() for r in rows), rows

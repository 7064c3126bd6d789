"""Fixtures of the dcistat package's tests: a private run directory for
segments, and what the suppliers provider reads from it, through the build's
`dcistat` loading that provider in its own process (no daemon needed).

run.sh sets DCISTAT_CLI and DCISTAT_SUPPLIERS_SO to the build's files."""

import json
import os
import subprocess

import pytest


@pytest.fixture
def run_dir(tmp_path):
    directory = tmp_path / "run"
    directory.mkdir(mode=0o700)
    return directory


@pytest.fixture
def served(tmp_path, run_dir):
    """served(class_id) -> {instance label: {datum label: value}} as the
    suppliers provider reads the run directory now."""
    config = tmp_path / "dcistatd.yaml"
    config.write_text(
        "providers:\n"
        f"  - module: {os.environ['DCISTAT_SUPPLIERS_SO']}\n"
        "    options:\n"
        f"      directory: {run_dir}\n"
    )

    def read(class_id):
        result = subprocess.run(
            [os.environ["DCISTAT_CLI"], "--insecure-paths", "-c", str(config),
             "--json", "show", class_id],
            capture_output=True, text=True, timeout=30, check=False)
        assert result.returncode == 0, result.stderr
        tables = json.loads(result.stdout)["tables"]
        assert len(tables) == 1, result.stdout
        return {row["instance"]: row for row in tables[0]["rows"]}

    return read

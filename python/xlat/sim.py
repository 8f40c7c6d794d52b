"""Run xlat-sim (the command-line driver) and read its JSON statistics."""

import json
import os
import shutil
import subprocess

from . import _paths  # noqa: F401 (tests read sim._paths.SIM)


def find_sim(path=None):
    """`path`, else XLAT_SIM, else the xlat-sim built or installed beside
    this libxlat, else the one on PATH."""
    if path is not None:
        if not os.access(path, os.X_OK):
            raise FileNotFoundError("xlat: no executable xlat-sim at %s" % path)
        return path
    for candidate in (os.environ.get("XLAT_SIM"), _paths.SIM):
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("xlat-sim")
    if found:
        return found
    raise FileNotFoundError("xlat: no xlat-sim found (give sim=PATH or set XLAT_SIM)")


def run_sim(preset, workload=None, requests=None, sets=None, args=(), sim=None):
    """Run `xlat-sim --preset PRESET [--workload W] [--requests N]
    [--set KEY=VALUE ...] ARGS --quiet --json -` and return the parsed JSON.

    Raises RuntimeError with xlat-sim's message when it fails."""
    cmd = [find_sim(sim), "--preset", preset]
    if workload is not None:
        cmd += ["--workload", workload]
    if requests is not None:
        cmd += ["--requests", str(requests)]
    for key, value in (sets or {}).items():
        cmd += ["--set", "%s=%s" % (key, value)]
    cmd += list(args) + ["--quiet", "--json", "-"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError("xlat-sim failed (exit %d): %s"
                           % (done.returncode, done.stderr.strip() or " ".join(cmd)))
    return json.loads(done.stdout)

"""This checkout as a user has it: a wheel built from it and installed into a fresh virtual
environment, its dependencies read from the running environment's site-packages (listed
after it by a .pth file, whose own .pth files, such as an editable install's finder, are
then not processed). Used by `bench/startup.py` and the packaging test."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build_wheel(folder: Path) -> Path:
    """The wheel of this checkout, built into `folder`."""
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
                           "--no-build-isolation", "-w", str(folder), str(ROOT)],
                          capture_output=True, text=True, check=False, cwd=folder)
    if done.returncode:  # setuptools' warnings are shown only when the build fails
        raise RuntimeError(f"pip wheel failed: {done.stderr[-2000:]}")
    (built,) = folder.glob("sheaf-*.whl")
    return built


def install_wheel(wheel: Path, env_dir: Path) -> tuple[Path, Path, str]:
    """A virtual environment at `env_dir` with `wheel` installed: its python, its `sheaf`
    console script (pip writes it from the entry points) and its site-packages."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env_dir)], check=True)
    python = env_dir / "bin" / "python"
    target = subprocess.run([str(python), "-c", "import sysconfig; "
                             "print(sysconfig.get_paths()['purelib'])"],
                            capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--quiet", "--no-deps", "--no-index", str(wheel)], check=True)
    Path(target, "zz_dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return python, env_dir / "bin" / "sheaf", target

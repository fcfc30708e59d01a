"""Map the repository's layer folders onto the `sheaf` import name (ADR-0002).

The repository keeps `domain/`, `application/`, `adapters/` and `entrypoints/`
at its root; installed they must be `sheaf.domain` and so on, and nothing named
`domain` may reach site-packages. The package list is computed so that a new
subpackage can never be silently left out of the wheel.
"""

from setuptools import find_packages, setup

LAYERS = ("domain", "application", "adapters", "entrypoints")


def layer_packages() -> tuple[list[str], dict[str, str]]:
    packages: list[str] = []
    package_dir: dict[str, str] = {}
    for layer in LAYERS:
        package_dir[f"sheaf.{layer}"] = layer
        packages.append(f"sheaf.{layer}")
        for sub in find_packages(where=layer):
            packages.append(f"sheaf.{layer}.{sub}")
    return packages, package_dir


PACKAGES, PACKAGE_DIR = layer_packages()

setup(
    packages=PACKAGES,
    package_dir=PACKAGE_DIR,
    package_data={"sheaf.entrypoints": ["samples/*"]},
)

"""Map the repository's layer folders onto the `sheaf` import name (ADR-0002).

The repository keeps `domain/`, `application/`, `adapters/` and `entrypoints/`
at its root; installed they must be `sheaf.domain` and so on, and nothing named
`domain` may reach site-packages. `sheaf` itself is `entrypoints/root_package/`, which
holds only the root `__init__.py` (so `from sheaf import Knowledge` works). The package
list is computed so that a new subpackage can never be silently left out of the wheel.
Folders of data (`entrypoints/samples/`) are packages without an `__init__.py` to
setuptools; they are listed as packages too, with their files as package data, or the
build warns that it would ignore them.
"""

from setuptools import find_packages, setup

LAYERS = ("domain", "application", "adapters", "entrypoints")
ROOT_PACKAGE = "entrypoints/root_package"
DATA_FOLDERS = {"sheaf.entrypoints.samples": ["*"]}


def layer_packages() -> tuple[list[str], dict[str, str]]:
    packages: list[str] = ["sheaf"]
    package_dir: dict[str, str] = {"sheaf": ROOT_PACKAGE}
    for layer in LAYERS:
        package_dir[f"sheaf.{layer}"] = layer
        packages.append(f"sheaf.{layer}")
        for sub in find_packages(where=layer, exclude=["root_package"]):
            packages.append(f"sheaf.{layer}.{sub}")
    packages.extend(DATA_FOLDERS)
    return packages, package_dir


PACKAGES, PACKAGE_DIR = layer_packages()

setup(
    packages=PACKAGES,
    package_dir=PACKAGE_DIR,
    package_data=DATA_FOLDERS,
)

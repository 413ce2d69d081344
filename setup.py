"""Packages of the wheel (the rest of the metadata is in pyproject.toml).

The search spaces, rules and system profiles (``search_spaces/``) and the job-script templates (``launchers/*.tmpl``)
live at the top of the checkout and ship inside the package as ``autotune/_data/``; ``autotune._paths`` finds them
there in an installed wheel and at the top of the checkout otherwise. The code packages are found, so a new
subpackage needs no entry here.
"""

from setuptools import find_packages, setup

DATA_DIRS = {  # package in the wheel -> directory in the checkout
    "autotune._data.search_spaces": "search_spaces",
    "autotune._data.search_spaces.systems": "search_spaces/systems",
    "autotune._data.launchers": "launchers",
}

setup(
    packages=[*find_packages(include=["autotune", "autotune.*"]), *DATA_DIRS],
    package_dir=DATA_DIRS,
    package_data={"autotune": ["py.typed"], **{p: ["*.yaml", "*.tmpl"] for p in DATA_DIRS}},
    include_package_data=False,  # only the files named above: not launchers/slurm-local/ or READMEs
)

# autotune — set-up, demo and tests.  `make demo` and `make test` each install everything first.
#
# On a Debian machine as root, `make setup` installs MPICH and parallel HDF5 from Debian's packages.
# On a cluster login node (no root), load your site's MPI and parallel HDF5 modules and run
#   make setup MPICC=$(which mpicc) HDF5_DIR=$HDF5_ROOT
# (or export MPICC/HDF5_DIR): the system-package step is skipped and mpi4py/h5py are built
# against the site's libraries instead.

SHELL := /bin/bash
# mpi4py compiles while the wheels install; h5py waits for mpi4py (make -j2 without asking).
MAKEFLAGS += --jobs=2
.SHELLFLAGS := -eu -o pipefail -c
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check -q
STAMPS := $(VENV)/.stamps
DEBIAN_PKGS := mpich libmpich-dev libhdf5-mpich-dev
SITE_MPI := $(if $(MPICC),yes,)
MPICC ?= mpicc
HDF5_DIR ?= /usr/lib/x86_64-linux-gnu/hdf5/mpich
PYTEST_ARGS ?=
# The MPI bindings are thin wrappers around I/O calls: -O1 without debug info builds ~1.6x faster.
BUILD_CFLAGS ?= -O1 -g0

.PHONY: setup setup-gp system setup-browser setup-ompi system-ompi demo test lint docs slurm-up slurm-down clean-venv

# Optuna's GPSampler (`sampler: gp`, one of the optimizer evaluation's methods) needs PyTorch: the CPU wheel
# (+31 s, +700 MiB here). `make setup WITH_GP=no` skips it (GP is then reported as unavailable).
WITH_GP ?= yes

setup: system $(STAMPS)/project $(STAMPS)/h5py $(if $(filter yes,$(WITH_GP)),$(STAMPS)/torch)
	@echo "setup: ready ($(VENV))"

# System MPI + parallel HDF5: Debian's packages unless a site MPI was given (MPICC=...).
system:
ifeq ($(SITE_MPI),yes)
	@echo "setup: using site MPI ($(MPICC)) and HDF5 ($(HDF5_DIR))"
else
	@dpkg -s $(DEBIAN_PKGS) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
	    echo "setup: needs $(DEBIAN_PKGS) (Debian, as root) or your site's MPI: make setup MPICC=... HDF5_DIR=..." >&2; \
	    exit 1; fi; \
	  echo "setup: installing $(DEBIAN_PKGS) (apt)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $(DEBIAN_PKGS) >/dev/null; }
endif

$(STAMPS)/venv:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --upgrade pip setuptools wheel
	mkdir -p $(STAMPS) && touch $@

# mpi4py from source against the system (or site) MPI: the PyPI wheel looks for libmpi.so.12.
$(STAMPS)/mpi4py: $(STAMPS)/venv | system
	CFLAGS="$(BUILD_CFLAGS)" MPICC=$(MPICC) $(PIP) install --no-binary=mpi4py "mpi4py>=4.0"
	$(PY) -c "from mpi4py import MPI; print('mpi4py', MPI.Get_library_version().splitlines()[0])"
	touch $@

# numpy and h5py's build dependencies as wheels (never numpy from source).
$(STAMPS)/builddeps: $(STAMPS)/venv
	$(PIP) install "numpy>=1.26" "Cython>=3" pkgconfig setuptools wheel
	touch $@

# The project and its Python dependencies (wheels); runs while mpi4py compiles.
$(STAMPS)/project: $(STAMPS)/builddeps pyproject.toml
	$(PIP) install -e ".[tracking,ray,samplers,model,postgres,dev,report,darshan]"
	touch $@

# h5py from source against parallel HDF5; its build imports mpi4py, hence the order.
$(STAMPS)/h5py: $(STAMPS)/mpi4py $(STAMPS)/builddeps | system
	CFLAGS="$(BUILD_CFLAGS)" CC=$(MPICC) HDF5_MPI=ON HDF5_DIR=$(HDF5_DIR) \
	  $(PIP) install --no-binary=h5py --no-build-isolation "h5py>=3.11"
	$(PY) -c "import h5py; assert h5py.get_config().mpi, 'h5py built without MPI'; print('h5py', h5py.__version__, 'mpi=True')"
	touch $@

# Open MPI beside MPICH (the tests run the kernels and a campaign under both): Debian's Open MPI 4.1 and a second
# virtual environment with mpi4py built against it. Installing openmpi-bin switches the mpirun/mpiexec, mpicc and
# libmpi.so alternatives to Open MPI: they are set back to MPICH in the same step, so plain `mpiexec`/`mpicc`
# stay MPICH (Open MPI is always called as mpiexec.openmpi / mpicc.openmpi). The dpkg lock timeout: make -j2 may
# run another apt step (setup-browser) at the same time.
OMPI_VENV ?= .venv-ompi
OMPI_PY := $(OMPI_VENV)/bin/python
OMPI_PIP := $(OMPI_PY) -m pip --disable-pip-version-check -q
OMPI_PKGS := openmpi-bin libopenmpi-dev

setup-ompi: $(OMPI_VENV)/.stamps/project
	@echo "setup-ompi: ready ($(OMPI_VENV), $$(readlink -f /usr/bin/mpiexec) is still the default mpiexec)"

system-ompi: | system
	@dpkg -s $(OMPI_PKGS) >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then \
	    echo "setup-ompi: needs $(OMPI_PKGS) (Debian, as root)" >&2; exit 1; fi; \
	  echo "setup-ompi: installing $(OMPI_PKGS) (apt), keeping MPICH the default"; \
	  status=0; { apt-get -o DPkg::Lock::Timeout=300 update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -o DPkg::Lock::Timeout=300 -y -qq $(OMPI_PKGS) >/dev/null; } || status=$$?; \
	  if [ -e /usr/bin/mpirun.mpich ]; then update-alternatives --quiet --set mpirun /usr/bin/mpirun.mpich; fi; \
	  if [ -e /usr/bin/mpicc.mpich ]; then update-alternatives --quiet --set mpi /usr/bin/mpicc.mpich; fi; \
	  if [ -e /usr/include/x86_64-linux-gnu/mpich ]; then \
	    update-alternatives --quiet --set mpi-x86_64-linux-gnu /usr/include/x86_64-linux-gnu/mpich; fi; \
	  exit $$status; }

$(OMPI_VENV)/.stamps/venv:
	$(PYTHON) -m venv $(OMPI_VENV)
	$(OMPI_PIP) install --upgrade pip setuptools wheel
	mkdir -p $(OMPI_VENV)/.stamps && touch $@

# --no-cache-dir: pip's wheel cache holds the mpi4py built against MPICH for the main environment.
$(OMPI_VENV)/.stamps/mpi4py: $(OMPI_VENV)/.stamps/venv | system-ompi
	CFLAGS="$(BUILD_CFLAGS)" MPICC=/usr/bin/mpicc.openmpi $(OMPI_PIP) install --no-cache-dir --no-binary=mpi4py "mpi4py>=4.0"
	$(OMPI_PY) -c "from mpi4py import MPI; v = MPI.Get_library_version(); assert 'Open MPI' in v, v; print('mpi4py', v.splitlines()[0])"
	touch $@

# The project (core dependencies: what the kernels import) for the kernels run under Open MPI.
$(OMPI_VENV)/.stamps/project: $(OMPI_VENV)/.stamps/mpi4py pyproject.toml
	$(OMPI_PIP) install -e .
	touch $@

demo: setup
	$(VENV)/bin/autotune tune experiments/campaigns/quickstart.yaml

# Headless Chromium for the report tests (screenshots of the HTML report); idempotent.
setup-browser: | system
	@command -v chromium >/dev/null 2>&1 || { \
	  echo "setup: installing chromium (apt)"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

# --durations=40: every run (CI included) prints its slowest tests, so a test that grows slow shows up.
# Two pytest-xdist workers (CI has 2 cores; most of the suite waits on subprocesses): a file's tests stay on one
# worker and the tests of the local Slurm and of Ray on one worker, one at a time (tests/conftest.py).
# TEST_WORKERS=0 runs in one process.
TEST_WORKERS ?= 2
test: setup setup-browser setup-ompi
	OMPI_VENV=$(abspath $(OMPI_VENV)) $(VENV)/bin/python -m pytest --durations=40 -n $(TEST_WORKERS) --dist loadgroup $(PYTEST_ARGS)

lint: setup
	$(VENV)/bin/ruff check autotune tests experiments
	$(VENV)/bin/mypy autotune experiments
	$(VENV)/bin/lint-imports

# The manual as a site in site/ (tests/docs/test_site.py builds it in strict mode under `make test`).
docs: setup
	$(VENV)/bin/mkdocs build --strict

clean-venv:
	rm -rf $(VENV) $(OMPI_VENV)

# A single-node Slurm on localhost (munged, slurmctld, slurmd) for the Slurm launcher's tests.
SLURM_DIR ?= .slurm

slurm-up:
	SLURM_DIR=$(SLURM_DIR) launchers/slurm-local/up.sh

slurm-down:
	SLURM_DIR=$(SLURM_DIR) launchers/slurm-local/down.sh

# PyTorch alone (after `make setup WITH_GP=no`).
setup-gp: $(STAMPS)/torch

$(STAMPS)/torch: $(STAMPS)/project
	$(PIP) install "torch==2.13.0"
	touch $@

# tfc — the front door. `make demo` builds and runs the main job; `make test` builds and runs
# every test. Both install the Debian packages they need first (when run as root).
BUILD ?= build
# Flags for the main job's training run (e.g. DEMO_FLAGS="--epochs 10 --devices 4").
DEMO_FLAGS ?=
MAKEFLAGS += --no-print-directory
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

DEB_PACKAGES = build-essential cmake pkg-config libopenblas-dev libprotobuf-c-dev protobuf-c-compiler libdnnl-dev zlib1g-dev libgrpc-dev libjpeg62-turbo-dev libpng-dev libgif-dev libre2-dev libfftw3-dev dataset-fashion-mnist valgrind python3-dev python3-pip
# The Python package's build and tests: numpy and pytest for the python3 on PATH (pip).
PY_PACKAGES = numpy pytest

.PHONY: all deps configure build demo test test-asan install bench clean

all: build

# Installs what is missing (apt-get, as root). Without root, install DEB_PACKAGES yourself.
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing:$$missing"; \
	    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing) >/dev/null; \
	  else echo "missing Debian packages:$$missing (run as root or install them)"; exit 1; fi; \
	fi
	@missing=""; for p in $(PY_PACKAGES); do \
	  python3 -c "import $$p" >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
	  echo "installing for python3:$$missing"; \
	  python3 -m pip install -q $$missing || python3 -m pip install -q --break-system-packages $$missing; \
	fi

configure: deps
	@cmake -S . -B $(BUILD) -DCMAKE_INSTALL_PREFIX=$(PREFIX) $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD) -j $(JOBS)

demo: build
	@cd $(BUILD) && ./seed_matmul seed_matmul.pb && ./tfc inspect seed_matmul.pb && \
	  ./tfc run seed_matmul.pb --fetch c && \
	  echo "--- multi_tower: two towers on CPU:2 and CPU:3, add_n on /cpu:0" && ./multi_tower && \
	  echo "--- in_graph_replication: split over four devices, concat on /cpu:0" && ./in_graph_replication && \
	  echo "--- soft_placement: a graph pinned to /device:GPU:2" && ./soft_placement && \
	  echo "--- mlp_build: seed 003's MLP with Adam, built in C" && ./mlp_build mlp.pb && \
	  echo "--- mlp_train: seed 003's trainer, in C" && ./mlp_train mlp.pb && \
	  { [ ! -d python/tfc ] || { echo "--- examples/python/mlp.py: seed 003's program in Python, trained by mlp_train" && \
	    mkdir -p python_mlp && PYTHONPATH=python python3 $(CURDIR)/examples/python/mlp.py python_mlp && \
	    ./mlp_train python_mlp/mlp.pb && \
	    for p in multi_tower in_graph_replication soft_placement; do \
	      echo "--- examples/python/$$p.py: the same seed program in Python" && \
	      PYTHONPATH=python python3 $(CURDIR)/examples/python/$$p.py || exit 1; done && \
	    echo "--- examples/python/matpow.py: seed 000's benchmark in Python, on /cpu:0 and /cpu:1" && \
	    PYTHONPATH=python python3 $(CURDIR)/examples/python/matpow.py --cpu --size 500; }; } && \
	  echo "--- distributed: seed 004's cluster programs (local server, two tasks, ps and workers)" && ./distributed && \
	  { [ ! -d python/tfc ] || { echo "--- examples/python/distributed.py: the same, in Python (the second task and the ps are child processes)" && \
	    PYTHONPATH=python python3 $(CURDIR)/examples/python/distributed.py && \
	    echo "--- examples/python/trainer.py: the guide's example trainer under MonitoredTrainingSession (ps and worker 1 are child processes)" && \
	    PYTHONPATH=python python3 $(CURDIR)/examples/python/trainer.py; }; } && \
	  echo "--- fashion_mnist: seed 004's CNN on Fashion-MNIST, one tower per device" && \
	  ./tfc data fashion-mnist --out fashion_mnist_data && rm -rf fashion_mnist_train && \
	  ./fashion_mnist --data fashion_mnist_data --out fashion_mnist_train $(DEMO_FLAGS) && \
	  { [ ! -d python/tfc ] || { echo "--- examples/python/fashion_mnist.py: the same program in Python (one epoch)" && \
	    rm -rf fashion_mnist_train_python && PYTHONPATH=python python3 $(CURDIR)/examples/python/fashion_mnist.py \
	      --data fashion_mnist_data --out fashion_mnist_train_python; }; }

test: build
	@cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

# The tests again under AddressSanitizer + UndefinedBehaviorSanitizer.
test-asan:
	@$(MAKE) --no-print-directory test BUILD=$(BUILD)-asan CMAKE_FLAGS="-DTFC_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug"

install: build
	@cmake --install $(BUILD) --prefix $(PREFIX) >/dev/null && echo "installed into $(PREFIX)"

# The peers the benchmarks compare against: PyPI's TensorFlow (CPU), PyTorch and onnxruntime,
# installed once into $(BUILD)/bench-venv by bench/peers.sh (a stamp file keeps a second run
# from reinstalling); every benchmark with a peer runs it in that environment's python
# (TFC_BENCH_PYTHON; python3 when the environment could not be made) and prints a "peers:"
# block. bench_cnn_graph is bench/cnn_python.py's C side, run by it. CI runs no benchmark.
BENCH_VENV = $(BUILD)/bench-venv
bench: build
	@python3 -c 'import ensurepip' 2>/dev/null || $(MAKE) deps DEB_PACKAGES=python3-venv
	@sh bench/peers.sh $(BENCH_VENV)
	@py=$(abspath $(BENCH_VENV))/bin/python; [ -x $$py ] || py=python3; export TFC_BENCH_PYTHON=$$py; \
	  (cd $(BUILD) && for b in bench_*; do [ $$b = bench_cnn_graph ] || ./$$b; done) && \
	  if [ -d $(BUILD)/python/tfc ]; then PYTHONPATH=$(BUILD)/python $$py bench/python_run.py && \
	    PYTHONPATH=$(BUILD)/python $$py bench/mlp_python.py && \
	    PYTHONPATH=$(BUILD)/python $$py bench/cnn_python.py; fi

clean:
	rm -rf $(BUILD) $(BUILD)-asan

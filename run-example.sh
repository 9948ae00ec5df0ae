#!/bin/sh
# run-example.sh: from a fresh Debian machine to a first trace. Installs the
# missing Debian packages, builds ovni-auto, traces the bundled example with
# ovnirun, checks the trace, prints a short summary and the path of its
# timeline page (ovni-auto view); then the same for an OpenMP example.
set -e
cd "$(dirname "$0")"
sh scripts/deps.sh
make -s all
mkdir -p build/example
cc -O2 -o build/example/workers examples/workers.c -lpthread
rm -rf build/example/trace
echo "== running the example under ovnirun"
build/bin/ovnirun -o build/example/trace build/example/workers
echo "== checking the trace"
build/bin/ovni-auto check -q build/example/trace
echo "== summary"
build/bin/ovni-auto stats build/example/trace
build/bin/ovni-auto view -q build/example/trace
echo "trace: $(pwd)/build/example/trace"
echo "timeline: $(pwd)/build/example/trace/view.html (open it in a browser; Paraver: docs/ovni-auto-viewing.7.md)"

# OpenMP: the same with a clang-compiled program (OMPT, LLVM libomp).
clang -O2 -fopenmp -o build/example/omp_tasks examples/omp_tasks.c
rm -rf build/example/omp-trace
echo "== running the OpenMP example under ovnirun (2 threads)"
OMP_NUM_THREADS=2 build/bin/ovnirun -o build/example/omp-trace build/example/omp_tasks
echo "== checking the trace"
build/bin/ovni-auto check -q build/example/omp-trace
echo "== summary (tasks per type; OpenMP states per thread)"
build/bin/ovni-auto stats build/example/omp-trace | sed -n '/^process  *task type/,/^$/p;/^OpenMP states/,/^$/p'
build/bin/ovni-auto view -q build/example/omp-trace
echo "trace: $(pwd)/build/example/omp-trace"
echo "timeline: $(pwd)/build/example/omp-trace/view.html"

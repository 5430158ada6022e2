# Sourced by the GPU scripts that compile there (gpu-dynamic-seq.sh, gpu-llm-decode.sh), with
# `root` set to the repo: unpacks the compiler payload (.device-cc.tar.xz,
# scripts/make-compiler-gpu-payload.sh) into /tmp/aicc once and puts its tools, libraries and
# Python package on the paths (AICC_BIN_DIR for bench/models.py's aicc-run).
if [ ! -x /tmp/aicc/bin/aicc-run ]; then
  mkdir -p /tmp/aicc && tar -xJf "$root/.device-cc.tar.xz" -C /tmp/aicc || return 1
fi
export PATH=/tmp/aicc/bin:$PATH LD_LIBRARY_PATH=/tmp/aicc/lib PYTHONPATH=/tmp/aicc/python
export AICC_BIN_DIR=/tmp/aicc/bin

#!/usr/bin/env bash
# The `gemm` workload (issue 34) on a GPU machine that has a Vulkan driver but no Rust toolchain
# (the device tool's H100 or H200). On a machine with both, the same figures come from
#
#     cargo run --release -p vyre-bench -- --only gemm --json gemm.json
#
#   bash vyre-driver-wgpu/bench/gemm-gpu.sh build [--cubecl]
#       here: release vyre-bench into .device-run/, the Vulkan loader's packages into .gl/; with
#       --cubecl also CubeCL's matmul (bench/cubecl-gemm, its own workspace: about 25 minutes of
#       building on two busy cores, 40 MB stripped)
#   bash vyre-driver-wgpu/bench/gemm-gpu.sh run
#       there, with .gl and .device-run carried: the full run, CubeCL's matmul when it was built,
#       then the tiling sweep
#
# `run` writes gemm.json, gemm.txt, cubecl.txt, gemm-tilings.json and gemm-tilings.txt into $OUT
# (or the current folder). The full run should take about a minute on an H100 (an estimate: 8 sides
# x 6 shapes, 1.3 TFLOP a side a repetition); the sweep (five tilings, sizes up to 4096) about as long.
set -euo pipefail
cd "$(dirname "$0")/../.."

# Tilings for the sweep: BMxBNxBK/TMxTN (see `vyre-bench --help`).
sweep=128x128x8/8x8,128x128x16/8x8,128x64x16/8x4,64x64x16/4x4,64x64x32/4x4

case "${1:-}" in
build)
    cargo build --release --locked -p vyre-bench
    mkdir -p .device-run .gl
    cp "${CARGO_TARGET_DIR:-target}/release/vyre-bench" .device-run/
    strip .device-run/vyre-bench
    if [ "${2:-}" = --cubecl ]; then
        (cd vyre-driver-wgpu/bench/cubecl-gemm && cargo build --release --locked)
        cp "${CARGO_TARGET_DIR:-vyre-driver-wgpu/bench/cubecl-gemm/target}/release/cubecl-gemm" .device-run/
        strip .device-run/cubecl-gemm
    fi
    if ! ls .gl/*.deb >/dev/null 2>&1; then
        o='-oAPT::Architecture=amd64 -oAPT::Architectures=amd64 -oDir::State::Lists=/tmp/amd64'
        mkdir -p /tmp/amd64/partial
        apt-get $o update
        (cd .gl && apt-get $o download libvulkan1 libegl1 libglvnd0 libopengl0 libgl1 libglx0 libgles2)
    fi
    echo "carry .gl and .device-run; then run: bash vyre-driver-wgpu/bench/gemm-gpu.sh run"
    ;;
run)
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
    icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
    if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$icd" ]; then
        export VK_DRIVER_FILES=$icd
    fi
    out=${OUT:-.}
    timeout 300 .device-run/vyre-bench --quiet --only gemm --json "$out/gemm.json" 2>&1 |
        grep -v XDG_RUNTIME_DIR | tee "$out/gemm.txt"
    if [ -x .device-run/cubecl-gemm ]; then
        timeout 240 .device-run/cubecl-gemm 2>&1 | grep -v XDG_RUNTIME_DIR | tee "$out/cubecl.txt"
    fi
    timeout 240 .device-run/vyre-bench --quiet --only gemm --max-bytes 64M --reps 10 \
        --gemm-tiling "$sweep" --json "$out/gemm-tilings.json" 2>&1 |
        grep -v XDG_RUNTIME_DIR | tee "$out/gemm-tilings.txt"
    ;;
*)
    echo "usage: $0 build [--cubecl] | run" >&2
    exit 2
    ;;
esac

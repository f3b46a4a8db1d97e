#!/usr/bin/env bash
# The GPU-vs-CPU benchmark of a bare Linux x86-64 machine with a GPU (no Node,
# no registry, no Vulkan loader needed there), in two halves:
#
#   bash scripts/device-bench.sh pack     here, in a checkout with node_modules:
#                                         builds lib/ and writes .device-bench/
#                                         (about 30 MB: Node as xz, the compiled
#                                         package with its shaders, Dawn's
#                                         dawn.node as xz, the Vulkan loader's and
#                                         libglvnd's .debs)
#   bash scripts/device-bench.sh run      there, in the same checkout with
#                                         .device-bench/ beside it: unpacks to
#                                         /tmp, runs the benchmarks, writes JSON
#
# `run` writes one file per benchmark (`stackfield bench --json` output) and
# device.json (the GPU, driver, adapter, commands, exit codes) to $OUT when
# that is set, else to bench-results/device-<date>/, and ends by printing
# each benchmark's backends side by side (scripts/bench-compare.mjs). Each benchmark runs on
# both backends in one process, so the CPU and GPU figures come from the same
# scene, steps and machine. The scenes: SDF bakes (sphere, cup, bunny at 64
# and 128 cells), 200 rings, 1000 boxes, the seed's bunny heap (skulls) and
# 1000 rings (the GPU target: 60 steps a second, the query stage under 2 ms).
#
# Environment for `pack`: DEVICE_BENCH_DIR (where to write, default
# .device-bench), DEVICE_BENCH_XZ (xz level, default 6), DEVICE_BENCH_SKIP_BUILD=1
# (use lib/ as it is), DEVICE_BENCH_NO_DEBS=1 (no Vulkan loader: the machine's
# own). tests/cli/package.test.ts packs and runs it this way on SwiftShader.
# Environment for `run`: DEVICE_BENCH_DIR, DEVICE_BENCH_ROOT (where to unpack,
# default /tmp/stackfield-device), VK_DRIVER_FILES (the GPU's Vulkan ICD; found under
# /usr/local/nvidia and /usr/share/vulkan when unset), BENCH_QUICK=1 (few
# bodies and steps: checks the pipeline), BENCH_TIMEOUT (seconds per
# benchmark, default 150; the five take about 4 minutes on an H200's host, so a
# 10-minute command holds them), BENCH_THREADS (CPU query threads, default 1: the
# single-thread figures the README compares), BENCH_PROFILE=0 (skip the
# profiles: by default the 1000-ring bench runs once more per backend, alone,
# under node --cpu-prof, and profile.txt gets its table and the functions
# with the most self time).
# CI never runs this: a machine with a GPU is not part of the test suite.
set -uo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
pack_dir="${DEVICE_BENCH_DIR:-$here/.device-bench}"

die() { echo "device-bench: $*" >&2; exit 1; }

pack() {
  command -v node >/dev/null || die "pack needs Node (run it in a checkout after npm install)"
  command -v xz >/dev/null || die "pack needs xz"
  local dawn="$here/node_modules/webgpu/dist/linux-x64/dawn.node"
  [ -f "$dawn" ] || die "no $dawn: run npm install first"
  if [ "${DEVICE_BENCH_SKIP_BUILD:-0}" = 1 ]; then
    [ -f "$here/lib/cli/bin.js" ] || die "no lib/cli/bin.js: run npm run build:lib"
  else
    (cd "$here" && npm run --silent build:lib) || die "building lib/ failed"
  fi
  local level="${DEVICE_BENCH_XZ:-6}"
  case "$pack_dir" in /|"") die "refusing to write into \"$pack_dir\"" ;; esac
  rm -rf "$pack_dir" && mkdir -p "$pack_dir/debs" || die "cannot create $pack_dir"
  local stage
  stage=$(mktemp -d) || die "mktemp failed"
  # The package as npm ships it (lib/, shaders/, examples/ with the bunny, package.json), the .d.ts left
  # out, and the one runtime dependency the CLI loads: webgpu (index.js;
  # dawn.node travels separately, compressed).
  mkdir -p "$stage/sf/node_modules/webgpu/dist/linux-x64"
  (cd "$here" && tar --exclude='*.d.ts' -cf - lib shaders examples package.json scripts/profile-summary.mjs scripts/bench-compare.mjs) | tar -xf - -C "$stage/sf"
  cp "$here/node_modules/webgpu/index.js" "$here/node_modules/webgpu/package.json" "$stage/sf/node_modules/webgpu/"
  tar -C "$stage" -cJf "$pack_dir/stackfield.tar.xz" sf || die "packing the package failed"
  xz -T0 "-$level" -c "$dawn" >"$pack_dir/dawn.node.xz" || die "compressing dawn.node failed"
  xz -T0 "-$level" -c "$(command -v node)" >"$pack_dir/node.xz" || die "compressing node failed"
  node --version >"$pack_dir/node.version"
  # The Vulkan loader (libvulkan.so.1) and the GL vendor-neutral libraries:
  # the GPU machine has the driver's ICD but not always the loader, and
  # NVIDIA's ICD (libGLX_nvidia.so.0) loads only beside libglvnd's
  # libGLdispatch ("Could not get 'vkCreateInstance' ... for ICD
  # libGLX_nvidia.so.0", then no adapter, on an H200 machine without them).
  # Downloaded as .debs from the Debian mirror.
  if [ "${DEVICE_BENCH_NO_DEBS:-0}" != 1 ]; then
    (cd "$pack_dir/debs" && apt-get download libvulkan1 libglvnd0 libglx0 libgl1 libegl1 libgles2 libopengl0 >/dev/null 2>&1) ||
      echo "device-bench: apt-get download of the Vulkan loader and libglvnd failed; run will rely on the machine's own" >&2
  fi
  rm -rf "$stage"
  du -sh "$pack_dir"/* | sed 's/^/  /'
  echo "device-bench: packed $(du -sh "$pack_dir" | cut -f1) into $pack_dir"
}

find_icd() {
  local f
  for f in /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json /usr/share/vulkan/icd.d/nvidia_icd.json \
    /etc/vulkan/icd.d/nvidia_icd.json /usr/local/nvidia/icd.d/nvidia_icd.json; do
    [ -f "$f" ] && { echo "$f"; return; }
  done
}

run() {
  [ -f "$pack_dir/node.xz" ] || die "no .device-bench/node.xz: run 'bash scripts/device-bench.sh pack' where Node is installed, and carry .device-bench"
  local root="${DEVICE_BENCH_ROOT:-/tmp/stackfield-device}"
  rm -rf "$root" && mkdir -p "$root/bin" "$root/vk" || die "cannot create $root"
  xz -dc "$pack_dir/node.xz" >"$root/bin/node" && chmod +x "$root/bin/node" || die "unpacking node failed"
  tar -C "$root" -xJf "$pack_dir/stackfield.tar.xz" || die "unpacking the package failed"
  xz -dc "$pack_dir/dawn.node.xz" >"$root/sf/node_modules/webgpu/dist/linux-x64/dawn.node" || die "unpacking dawn.node failed"
  local deb
  for deb in "$pack_dir"/debs/*.deb; do [ -f "$deb" ] && dpkg -x "$deb" "$root/vk"; done
  local vklib
  vklib=$(find "$root/vk" -name 'libvulkan.so.1*' -printf '%h\n' 2>/dev/null | head -n1)
  [ -n "$vklib" ] && export LD_LIBRARY_PATH="$vklib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  if [ -z "${VK_DRIVER_FILES:-}${VK_ICD_FILENAMES:-}" ]; then
    local icd
    icd=$(find_icd)
    [ -n "$icd" ] && export VK_DRIVER_FILES="$icd"
  fi
  local node="$root/bin/node" cli="$root/sf/lib/cli/bin.js"
  "$node" --version >/dev/null || die "the packed node does not run here"

  local out="${OUT:-}"
  [ -n "$out" ] || out="$here/bench-results/device-$(date -u +%Y-%m-%d)"
  mkdir -p "$out" || die "cannot create $out"
  local quick="${BENCH_QUICK:-0}" limit="${BENCH_TIMEOUT:-150}" threads="${BENCH_THREADS:-1}"
  # Steps that reach each heap's landing: 200 rings hit the floor and the pile
  # at 1.4-2.2 s, 1000 rings on the floor from 3 s on, the boxes land at once; the
  # bunny heap runs its whole 7 s, the issue's figure.
  local s_rings=240 s_boxes=300 s_skulls=700 s_many=400 n_rings=200 n_boxes=1000 n_skulls=50 n_many=1000
  # Quick: the same five benchmarks at a few bodies and steps, to check the pipeline.
  # (The bunny heap then runs on the CPU alone: a software GPU bakes the bunny's field for minutes.)
  local skull_backends=cpu,gpu
  if [ "$quick" = 1 ]; then s_rings=4; s_boxes=3; s_skulls=3; s_many=3; n_rings=12; n_boxes=27; n_skulls=3; n_many=24; skull_backends=cpu; fi

  local log="$out/device.log"
  : >"$log"
  local -a names=() codes=() cmds=()
  bench() { # name, then the bench arguments
    local name=$1; shift
    local -a args=(bench "$@" --json --out "$out/$name.json")
    [ "$name" = sdf ] || args+=(--threads "$threads")
    echo "device-bench: $name: stackfield ${args[*]}" | tee -a "$log"
    timeout "$limit" "$node" "$cli" "${args[@]}" >>"$log" 2>&1
    local rc=$?
    [ $rc -eq 0 ] || echo "device-bench: $name exited $rc (see device.log)" | tee -a "$log"
    names+=("$name"); codes+=("$rc"); cmds+=("stackfield ${args[*]}")
  }
  local cells=64,128 repeats=2
  # (Quick: 8 cells once; a software GPU takes 4 s for a 16-cell bunny.)
  [ "$quick" = 1 ] && cells=8 && repeats=1
  bench sdf --sdf --cells "$cells" --backend cpu,gpu --repeats "$repeats"
  bench "rings-$n_rings" --builtin rings --bodies "$n_rings" --steps "$s_rings" --warmup 0 --backend cpu,gpu
  bench "boxes-$n_boxes" --builtin boxes --bodies "$n_boxes" --steps "$s_boxes" --warmup 0 --backend cpu,gpu
  bench "skulls-$n_skulls" --builtin skulls --bodies "$n_skulls" --steps "$s_skulls" --warmup 0 --backend "$skull_backends"
  bench "rings-$n_many" --builtin rings --bodies "$n_many" --steps "$s_many" --warmup 0 --backend cpu,gpu

  # Where the time goes: the 1000-ring bench again, each backend alone in its
  # own process under V8's profiler, summarised by function (profile.txt).
  if [ "${BENCH_PROFILE:-1}" = 1 ]; then
    local b prof="$root/prof"
    : >"$out/profile.txt"
    for b in cpu gpu; do
      rm -rf "$prof"
      echo "device-bench: profile-$b: stackfield bench --builtin rings --bodies $n_many --steps $s_many --warmup 0 --backend $b (node --cpu-prof)" | tee -a "$log"
      timeout "$limit" "$node" --cpu-prof --cpu-prof-dir="$prof" "$cli" bench --builtin rings --bodies "$n_many" --steps "$s_many" --warmup 0 \
        --backend "$b" --threads "$threads" >>"$out/profile.txt" 2>>"$log"
      local rc=$?
      [ $rc -eq 0 ] || echo "device-bench: profile-$b exited $rc (see device.log)" | tee -a "$log"
      "$node" "$root/sf/scripts/profile-summary.mjs" "$prof" 40 >>"$out/profile.txt" 2>>"$log"
      names+=("profile-$b"); codes+=("$rc"); cmds+=("node --cpu-prof stackfield bench --builtin rings --bodies $n_many --steps $s_many --warmup 0 --backend $b --threads $threads")
    done
  fi

  # What the numbers ran on.
  local gpu driver
  gpu=$(nvidia-smi --query-gpu=name,memory.total --format=csv,noheader 2>/dev/null | head -n1)
  driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n1)
  {
    printf '{\n  "date": "%s",\n  "host": "%s",\n  "cpu": "%s",\n  "cores": %s,\n' \
      "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$(uname -srm)" \
      "$(grep -m1 'model name' /proc/cpuinfo 2>/dev/null | cut -d: -f2- | sed 's/^ *//; s/"/\\"/g')" "$(nproc)"
    printf '  "gpu": "%s",\n  "driver": "%s",\n  "vulkanDriverFiles": "%s",\n  "node": "%s",\n  "threads": %s,\n  "quick": %s,\n  "runs": [\n' \
      "${gpu:-unknown}" "${driver:-unknown}" "${VK_DRIVER_FILES:-${VK_ICD_FILENAMES:-}}" "$("$node" --version)" "$threads" "$quick"
    local i
    for i in "${!names[@]}"; do
      printf '    {"name": "%s", "exit": %s, "command": "%s"}%s\n' "${names[$i]}" "${codes[$i]}" "${cmds[$i]}" \
        "$([ "$i" -lt $((${#names[@]} - 1)) ] && echo ,)"
    done
    printf '  ]\n}\n'
  } >"$out/device.json"
  # The backends side by side, on standard output (the end of a device run's
  # reply) and in the log.
  local -a jsons=()
  for i in "${!names[@]}"; do
    [ -f "$out/${names[$i]}.json" ] && jsons+=("$out/${names[$i]}.json")
  done
  [ ${#jsons[@]} -gt 0 ] && "$node" "$root/sf/scripts/bench-compare.mjs" "${jsons[@]}" 2>&1 | tee -a "$log"
  echo "device-bench: results in $out"
  local c
  for c in "${codes[@]}"; do [ "$c" = 0 ] || return 1; done
}

case "${1:-}" in
  pack) pack ;;
  run) run ;;
  *) echo "usage: bash scripts/device-bench.sh pack | run   (see the comment at the top of the file)" >&2; exit 2 ;;
esac

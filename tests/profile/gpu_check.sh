#!/usr/bin/env bash
# rooftui profile on a real GPU, against ncu --set roofline.
#   bash tests/profile/gpu_check.sh OUTDIR [STEPS]   (from the repository root, on a GPU node)
# STEPS: a comma-separated subset of passes,paths,deepcam (default: all three).
# 1. replay passes per metric set, on one small kernel (tests/profile/pass_probe.cu);
# 2. rooftui profile with the real ncu: a short run summarised, a failing command, Ctrl-C;
# 3. one DeepCAM-like AMP step (5 warm-up steps, then one profiled step) under
#    `rooftui profile` and under `ncu --set roofline`: passes per kernel, wall time;
# 4. the raw CSV (base units) of rooftui's report, xz-compressed, for the tests.
# Never changes clocks: every ncu call has --clock-control none.
set -u
out=${1:?usage: gpu_check.sh OUTDIR [passes,paths,deepcam]}
steps=,${2:-passes,paths,deepcam},
want() { [[ $steps == *,$1,* ]]; }
mkdir -p "$out"
work=$(mktemp -d)
export PYTHONPATH=$PWD PYTHONUNBUFFERED=1
rooftui() { python3 -m rooftui "$@"; }
log() { echo "[gpu_check $(date +%T)] $*"; }
now() { date +%s.%N; }
passes_each() { sed -nE 's/.* - ([0-9]+) pass(es)?$/\1/p'; }
minus() { awk -v e="$1" -v s="$2" 'BEGIN { printf "%.1f", e - s }'; }
# A background job of a script starts with SIGINT ignored; undo that, as a terminal would have it.
with_sigint=(python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])')
step=(python3 sample_data/make/deepcam_step.py --precision amp)
table=$out/passes.tsv
printf 'what\tmetrics\tpasses_per_kernel\tkernels\twall_s\n' > "$table"

ncu --version | tail -1
nvidia-smi --query-gpu=name,compute_cap,clocks.sm,clocks.max.sm,driver_version --format=csv,noheader
ncu --help | grep -A6 -E '^ +(-o|--log-file)' | head -30
log "rooftui metrics on this GPU: $(rooftui metrics | tr ',' '\n' | wc -l) metrics"

nvcc -O2 -arch=sm_90 -o "$work/pass_probe" tests/profile/pass_probe.cu || exit 1
if want passes; then
log "1. passes per metric set"
python3 tests/profile/pass_variants.py 9.0 > "$work/variants.tsv"
while IFS=$'\t' read -r label names; do
  passes=$(ncu --clock-control none --metrics "$names" "$work/pass_probe" 1 0 < /dev/null 2>&1 \
           | passes_each | head -1)
  count=$(echo "$names" | tr ',' '\n' | wc -l)
  printf 'probe %s\t%s\t%s\t1\t\n' "$label" "$count" "${passes:-?}" | tee -a "$table"
done < "$work/variants.tsv"
fi

if want paths; then
log "2. a short profile of the probe, summarised"
rooftui profile --launch-count 3 -o "$work/probe3" -- "$work/pass_probe" 10 0 < /dev/null \
  > "$out/probe3.summary.txt" 2> "$work/probe3.err"
echo "rooftui profile exit code: $?"; tail -3 "$work/probe3.err"; head -12 "$out/probe3.summary.txt"

log "2a. a failing command: raw ncu, then rooftui profile (expect exit 3)"
ncu --clock-control none --metrics gpu__time_duration.sum "$work/pass_probe" 1 3 2>&1 | tail -3
echo "ncu exit code: ${PIPESTATUS[0]}"
rooftui profile -o "$work/exit3" -- "$work/pass_probe" 1 3 < /dev/null > /dev/null 2> "$work/exit3.err"
echo "rooftui profile exit code: $?"; grep -v '^==' "$work/exit3.err"; tail -3 "$work/exit3.ncu.log"

log "2b. Ctrl-C to the whole process group (as a terminal does) after 8 s"
setsid "${with_sigint[@]}" python3 -m rooftui profile --launch-count 300 -o "$work/interrupted" \
  -- "$work/pass_probe" 3000 0 > /dev/null 2> "$work/interrupted.err" &
pid=$!
sleep 8; kill -INT -- "-$pid"
t0=$(now)
for _ in $(seq 40); do ps -o stat= -p "$pid" | grep -qv Z || break; sleep 1; done
ps -o stat= -p "$pid" | grep -qv Z && kill -KILL -- "-$pid" && echo "still running 40 s after Ctrl-C: killed"
wait "$pid"
echo "rooftui profile exit code after Ctrl-C: $? (exited $(minus "$(now)" "$t0") s after it)"
cp "$work/interrupted.ncu.log" "$out/"
grep -v '^==PROF== Profiling' "$work/interrupted.err" | tail -6; tail -4 "$work/interrupted.ncu.log"
ls -la "$work"/interrupted*
fi

if want deepcam; then

log "3a. rooftui profile, deepcam amp step"
s=$(now)
timeout -s INT 180 python3 -m rooftui profile --profile-from-start off -o "$work/deepcam_amp_rooftui" -- "${step[@]}" \
  > "$out/deepcam_amp_rooftui.summary.txt" 2> "$out/deepcam_amp_rooftui.err"
rc=$?; e=$(now)
echo "rooftui profile exit code: $rc"; grep -v '^==PROF== Profiling' "$out/deepcam_amp_rooftui.err" | tail -8
if [ ! -s "$work/deepcam_amp_rooftui.ncu-rep" ]; then
  log "rooftui profile wrote no report: the same ncu run by hand, for the numbers"
  s=$(now)
  ncu --metrics "$(rooftui metrics --arch sm_90)" --nvtx --clock-control none --target-processes all \
    --profile-from-start off -o "$work/deepcam_amp_rooftui" "${step[@]}" > "$work/deepcam_amp_rooftui.ncu.log" 2>&1
  e=$(now)
fi
cp "$work/deepcam_amp_rooftui.ncu.log" "$out/"
xz -1 -T0 -c "$work/deepcam_amp_rooftui.ncu-rep" > "$out/deepcam_amp_rooftui.ncu-rep.xz"
ncu --import "$work/deepcam_amp_rooftui.ncu-rep" --csv --page raw --print-units base \
  | xz -9 > "$out/deepcam_amp_rooftui.raw-base.csv.xz"
n=$(passes_each < "$out/deepcam_amp_rooftui.ncu.log" | wc -l)
p=$(passes_each < "$out/deepcam_amp_rooftui.ncu.log" | sort -u | paste -sd/)
m=$(rooftui metrics | tr ',' '\n' | wc -l)
printf 'deepcam amp: rooftui profile\t%s\t%s\t%s\t%s\n' "$m" "$p" "$n" "$(minus "$e" "$s")" | tee -a "$table"

log "3b. ncu --set roofline, same step"
s=$(now)
timeout 200 ncu --set roofline --nvtx --clock-control none --target-processes all \
  --profile-from-start off -o "$work/deepcam_amp_roofline" "${step[@]}" \
  > "$out/deepcam_amp_roofline.ncu.log" 2>&1
rc=$?; e=$(now)
echo "ncu --set roofline exit code: $rc"
n=$(passes_each < "$out/deepcam_amp_roofline.ncu.log" | wc -l)
p=$(passes_each < "$out/deepcam_amp_roofline.ncu.log" | sort -u | paste -sd/)
printf 'deepcam amp: ncu --set roofline\tset\t%s\t%s\t%s\n' "$p" "$n" "$(minus "$e" "$s")" | tee -a "$table"
fi
ls -la "$out"
log "done"

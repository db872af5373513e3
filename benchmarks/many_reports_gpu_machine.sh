#!/usr/bin/env bash
# The ">= 8 cores" figure of issue 14 on the GPU machine (2 x H200, 32 cores), where
# there is no pip registry: rooftui runs from this checkout, ncu_report from ncu's own
# extras/python, click_default_group from a carried copy in DIR (first argument).
# One report of the DeepCAM AMP sample against 8 copies of it as one run, 3 rounds,
# plus the reader process alone, split (the default) and in one process.
#   bash benchmarks/many_reports_gpu_machine.sh .dev/lead > benchmarks/results/many_reports_h200x2.txt
set -u
export PYTHONPATH="$PWD:${1:-.}:$(ls -d /opt/nvidia/nsight-compute/*/extras/python | head -1)"
export ROOFTUI_NO_CACHE=1 XDG_CACHE_HOME=/tmp/cache
mkdir -p /tmp/b; xz -dc sample_data/deepcam/deepcam_amp.ncu-rep.xz > /tmp/b/r0.ncu-rep
for i in 1 2 3 4 5 6 7; do cp /tmp/b/r0.ncu-rep /tmp/b/r$i.ncu-rep; done
echo "$(nproc) cores; $(python3 --version); 8 copies of deepcam_amp.ncu-rep (179 launches, 153 MB)"
w() {  # wall time of a command, its exit code and the last of its stderr
    local s; s=$(date +%s.%N)
    "${@:2}" >/dev/null 2>/tmp/err.txt
    echo "rc=$? wall=$(python3 -c "print(f'{$(date +%s.%N)-$s:.2f}')") s :: $1"
    tail -c 200 /tmp/err.txt | grep -v "^note:" || true
}
w "reader, split (default)" /usr/bin/time -f "%e s %M KB" python3 -m rooftui.ingest._ncu_rep_worker /tmp/b/r0.ncu-rep
w "reader, one process" /usr/bin/time -f "%e s %M KB" python3 -m rooftui.ingest._ncu_rep_worker --child-bytes 0 /tmp/b/r0.ncu-rep
w "warm-up: one report" python3 -m rooftui summary --no-cache /tmp/b/r0.ncu-rep
for round in 1 2 3; do
    w "round $round: one report" python3 -m rooftui summary --no-cache /tmp/b/r0.ncu-rep
    w "round $round: 8 reports as one run" python3 -m rooftui summary --no-cache /tmp/b/r[0-7].ncu-rep
done

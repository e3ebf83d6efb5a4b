#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Builds the libFuzzer targets (Debian's clang-14, with ASan + UBSan):
# fuzz_parsers (every text parser, and the fabric loader topology/qft
# calls) and fuzz_place (fabric JSON -> tree ->
# router -> placement), and runs each parser and the placement for a
# bounded time, from seed inputs made of the project's own fixtures (and
# degraded copies of them). fuzz_lid_table: the LID-table reader of the
# verbs interposer (contribs/verbs/lid_table.c), plain C. Exit status 1 on
# any crash.
#   usage: tests/fuzz/run.sh [SECONDS-PER-RUN]   (default 20)
#   QFT_FUZZ_RUNS=N: stop each run after N executions (or the time limit)
#   QFT_FUZZ_PARSERS="lidtable ...": only those runs (default all)
#   QFT_FUZZ_WORK=DIR: build and corpora there (default build/fuzz)
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
secs=${1:-${QFT_FUZZ_SECONDS:-20}}
work=${QFT_FUZZ_WORK:-$top/build/fuzz}
parsers=${QFT_FUZZ_PARSERS:-json ibnetdiscover lft pgft hostlist plugin place lidtable}
mkdir -p "$work"
if ! command -v clang++-14 >/dev/null || [ ! -d /usr/lib/llvm-14/lib/clang/14.0.6/lib/linux ]; then
	SUDO=
	[ "$(id -u)" = 0 ] || SUDO=sudo
	$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq clang-14 libclang-rt-14-dev >/dev/null
fi
srcs=$(cd "$top" && ls lib/*/*.cpp | grep -v -e lib/fabric/discover.cpp)
# the C API's one configured value
printf '#define PACKAGE_VERSION "fuzz"\n' >"$work/qft_config.h"
flags="-std=c++17 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -I$top -I$top/lib/include -I$work $(pkg-config --cflags jansson)"
# the interposer's reader alone: C, no libibverbs, no core
if [ ! -x "$work/fuzz_lid_table" ] || [ -n "$(find "$top/contribs/verbs" "$top/tests/fuzz/fuzz_lid_table.c" -newer "$work/fuzz_lid_table" -name '*.[ch]')" ]; then
	echo "fuzz: building fuzz_lid_table with clang-14 (ASan, UBSan)"
	clang-14 -std=gnu11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-Wall -Wextra -Werror -I"$top" "$top/contribs/verbs/lid_table.c" "$top/tests/fuzz/fuzz_lid_table.c" \
		-o "$work/fuzz_lid_table"
fi
# the core's objects once, both cores, for both targets (not needed when
# only the LID table is fuzzed)
stale=0
[ "$parsers" = lidtable ] ||
for target in fuzz_parsers fuzz_place; do
	if [ ! -x "$work/$target" ] || [ -n "$(find "$top/lib" "$top/tests/fuzz" -newer "$work/$target" \( -name '*.[ch]pp' -o -name '*.h' \))" ]; then
		stale=1
	fi
done
if [ "$stale" = 1 ]; then
	echo "fuzz: building fuzz_parsers and fuzz_place with clang++-14 (ASan, UBSan)"
	rm -rf "$work/obj"
	mkdir -p "$work/obj"
	# shellcheck disable=SC2086 # $flags is a list of options
	(cd "$top" && printf '%s\n' $srcs | FLAGS=$flags OBJ=$work/obj xargs -P "$(nproc)" -I{} \
		sh -c 'exec clang++-14 $FLAGS -c "$1" -o "$OBJ/$(echo "$1" | tr / _).o"' sh {})
	for target in fuzz_parsers fuzz_place; do
		# shellcheck disable=SC2086
		(cd "$top" && clang++-14 $flags "$work"/obj/*.o tests/fuzz/$target.cpp $(pkg-config --libs jansson) -o "$work/$target")
	done
fi
# Seeds: one corpus per parser, its first byte selecting the parser.
seed() { # seed PARSER-BYTE CORPUS FILE...
	local byte=$1 dir=$2
	shift 2
	mkdir -p "$dir"
	local f i=0
	for f in "$@"; do
		{ printf "\\x$(printf %02x "$byte")"; head -c 60000 "$f"; } >"$dir/seed-$i"
		i=$((i + 1))
	done
}
data=$top/tests/data/ib
rm -rf "$work/corpus"
seed 0 "$work/corpus/json" "$data"/pgft-2-4/fabric.json "$data"/pgft-3-4-4-2/fabric.json
seed 1 "$work/corpus/ibnetdiscover" "$data"/pgft-2-4/ibnetdiscover.txt "$data"/pgft-2-6/ibnetdiscover.txt
seed 5 "$work/corpus/plugin" "$data"/pgft-2-4/fabric.json "$data"/pgft-3-4-4-2/fabric.json
python3 - "$data"/pgft-2-4/fabric.json >"$work/untreed.json" <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
f.pop("tree", None)
for k in ("switches", "hosts"):
    for n in f[k]:
        n.pop("level", None), n.pop("index", None)
json.dump(f, sys.stdout)
PY
seed 5 "$work/corpus/plugin-untreed" "$work/untreed.json" && mv "$work/corpus/plugin-untreed/seed-0" "$work/corpus/plugin/seed-2" && rmdir "$work/corpus/plugin-untreed"
seed 2 "$work/corpus/lft" "$data"/pgft-2-4/opensm-lfts-ftree.dump "$data"/pgft-2-4/ibroute-L1-0.0.txt
printf '\x033;18,18,6;1,18,6;1,1,3' >"$work/t1" && mkdir -p "$work/corpus/pgft" && mv "$work/t1" "$work/corpus/pgft/seed-0"
printf '\x04n[0001-0018,0020],gpu7' >"$work/t2" && mkdir -p "$work/corpus/hostlist" && mv "$work/t2" "$work/corpus/hostlist/seed-0"
# placement: four knob bytes, then a fabric: whole, with cut cables, with a
# detached host (no position), and without its annotation (recognised)
mkdir -p "$work/corpus/place"
python3 - "$work/corpus/place" "$data"/pgft-2-4/fabric.json "$data"/pgft-3-4-4-2/fabric.json <<'PY'
import json, random, sys
out, files = sys.argv[1], sys.argv[2:]
for i, path in enumerate(files):
    base = json.load(open(path))
    hosts = {h["guid"] for h in base["hosts"]}
    for j, (knobs, cut, detach, strip) in enumerate(
            [(b"\x10\x05\x0c\x21", 0, False, False), (b"\x21\x07\x03\x90", 3, False, False),
             (b"\x02\x04\x11\x08", 0, True, False), (b"\x0f\x06\x02\x05", 2, True, True)]):
        f = json.loads(json.dumps(base))
        rng = random.Random(i * 10 + j)
        sw = [l for l in f["links"] if l[0] not in hosts]
        gone = rng.sample(sw, cut)
        if detach:
            link = next(l for l in f["links"] if l[0] in hosts)
            gone.append(link)
            for h in f["hosts"]:
                if h["guid"] == link[0]:
                    h.pop("level"), h.pop("index")
        f["links"] = [l for l in f["links"] if l not in gone]
        if strip:
            del f["tree"]
            for k in ("switches", "hosts"):
                for n in f[k]:
                    n.pop("level", None), n.pop("index", None)
        open(f"{out}/seed-{i}-{j}", "wb").write(knobs + json.dumps(f).encode())
PY
# the LID table: the test tables of tests/verbs and the three choices
mkdir -p "$work/corpus/lidtable"
printf '# c\nqft-lid 1\nlmc 2\nchoice pair\nhosts 3\nhost n0001 0x0004 1\nhost n0002 0x0008 0\nhost n0007 0x001c 3\npairs\n012\n201\n310\nend\n' >"$work/corpus/lidtable/pair"
printf 'qft-lid 1\nlmc 2\nchoice dest\nhosts 3\nhost n0001 4 1\nhost n0002 8 2\nhost n0007 28 3\nend\n' >"$work/corpus/lidtable/dest"
printf 'qft-lid 1\nlmc 2\nchoice job\nhosts 2\nhost a 0x0004 2\nhost b 0x0008 2\nend\n' >"$work/corpus/lidtable/job"
printf 'qft-lid 1\nlmc 5\nchoice pair\nhosts 3\nhost h0 0x0020 0\nhost h1 0x0040 0\nhost h2 0x0060 0\npairs\n001f0a\n110005\n1e0300\nend\n' >"$work/corpus/lidtable/lmc5"
limit=(-max_total_time="$secs")
[ -z "${QFT_FUZZ_RUNS:-}" ] || limit+=(-runs="$QFT_FUZZ_RUNS")
# fuzz_one PARSER: one bounded run; its verdict in $work/PARSER.result
fuzz_one() {
	local parser=$1 target=fuzz_parsers start=$SECONDS
	mkdir -p "$work/crashes/$parser"
	[ "$parser" != place ] || target=fuzz_place
	[ "$parser" != lidtable ] || target=fuzz_lid_table
	if "$work/$target" "${limit[@]}" -max_len=65536 -timeout=10 \
		-rss_limit_mb=2048 -print_final_stats=1 -artifact_prefix="$work/crashes/$parser/" \
		"$work/corpus/$parser" >"$work/$parser.log" 2>&1; then
		echo "fuzz $parser: ok, $(grep -o 'stat::number_of_executed_units: [0-9]*' "$work/$parser.log" | awk '{print $2}') runs in $((SECONDS - start))s"
	else
		echo "fuzz $parser: FAILED"
		grep -A20 "ERROR\|SUMMARY" "$work/$parser.log" | head -40
	fi >"$work/$parser.result"
}
# libFuzzer runs on one core: as many runs at once as there are cores
rm -f "$work"/*.result
for parser in $parsers; do
	while [ "$(jobs -rp | wc -l)" -ge "$(nproc)" ]; do wait -n || true; done
	fuzz_one "$parser" &
done
wait
status=0
for parser in $parsers; do
	cat "$work/$parser.result"
	grep -q "^fuzz $parser: ok" "$work/$parser.result" || status=1
done
exit $status

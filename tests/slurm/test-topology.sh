#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# topology/qft in a real slurmctld (front-end mode): the fabric's tree as
# Slurm's switch table, node order = tree order even when names are
# shuffled against the tree, jobs run, and every kind of bad input gives
# the admin a message naming what to fix; slurmctld never crashes.
TEST_NAME=test-topology
. "$(dirname "$0")/lib.sh"

T=$ROOT/topology
rm -rf "$T"
mkdir -p "$T"
plugin_dir "$T/plugins"
tuple="2;18,18;1,18;1,1"
"$QFT" gen pgft "$tuple" --shuffle-names 7 -o "$T/fabric.json" 2>/dev/null
echo "FabricFile=fabric.json" >"$T/qft.conf"
tree_names "$T/fabric.json" | sort >"$T/nodes.byname"
"$QFT" topology-conf --fabric "$T/fabric.json" >"$T/subtrees.conf"

# switch_records_match TOPOLOGY-TXT: every record of `scontrol show
# topology` lists, by name, exactly the hosts below its subtree in the
# fabric (`qft topology-conf`), and every subtree has its record.
switch_records_match() {
	python3 - "$T/subtrees.conf" "$1" <<'PY'
import re, sys
def expand(expr):  # a Slurm host list: a[1-3,7],b05
    out, depth, tok = [], 0, ""
    for ch in expr + ",":
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            m = re.match(r"^([^\[]*)\[([^\]]*)\](.*)$", tok)
            if not m:
                out.append(tok)
            else:
                for part in m.group(2).split(","):
                    a, _, b = part.partition("-")
                    b = b or a
                    out += ["%s%0*d%s" % (m.group(1), len(a), i, m.group(3))
                            for i in range(int(a), int(b) + 1)]
            tok = ""
        else:
            tok += ch
    return [x for x in out if x]
def records(path):
    recs = {}
    for line in open(path):
        kv = dict(re.findall(r"(\w+)=(\S+)", line))
        if "SwitchName" in kv:
            recs[kv["SwitchName"]] = kv
    return recs
want, got = records(sys.argv[1]), records(sys.argv[2])
def below(name):
    r = want[name]
    hosts = set(expand(r.get("Nodes", "")))
    for child in expand(r.get("Switches", "")):
        hosts |= below(child)
    return hosts
bad = sorted(set(want) ^ set(got))
for name in want:
    if name in got and set(expand(got[name].get("Nodes", ""))) != below(name):
        bad.append(name)
if bad:
    print("switch records that do not list their subtree:", " ".join(bad[:10]), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
}
# is_one_leaf NAMES...: the names are exactly the hosts of one leaf switch
is_one_leaf() {
	local got leaves
	got=$(printf '%s\n' "$@" | sort | paste -sd,)
	leaves=$(sed -n 's/^SwitchName=L1-[0-9]* Nodes=\([^ ]*\).*/\1/p' "$T/subtrees.conf" |
		while read -r leaf; do
			"$BIN/scontrol" show hostnames "$leaf" </dev/null | sort | paste -sd,
		done)
	grep -qx -- "$got" <<<"$leaves"
}

# batch_on_one_leaf WHAT: an 18-node batch job completes, on one whole leaf
batch_on_one_leaf() {
	local id
	id=$(cd "$W" && "$BIN/sbatch" --parsable -N18 -o "$W/leaf-%j.out" --wrap 'echo $SLURM_JOB_NODELIST')
	expect_eq "$1: an 18-node batch job" "$(wait_job "$BIN" "$id")" COMPLETED
	# shellcheck disable=SC2046
	check "  its nodes are one whole leaf, by name" \
		is_one_leaf $("$BIN/scontrol" show hostnames "$(cat "$W/leaf-$id.out" 2>/dev/null)")
}

# --- 1. a 324-node cluster whose names do not follow the tree -------------
W=$T/c1
start_cluster "$W" --node-file "$T/nodes.byname" -p "$T/plugins" -t topology/qft \
	-s select/cons_tres -c "$T/qft.conf" -c "$T/fabric.json" ||
	{ cat "$W.start.out"; bad "cluster with topology/qft did not start"; finish; }
BIN=$W/bin
LOG=$W/log/slurmctld.log
ok "324-node front-end cluster up with topology/qft"
check "slurmctld logs the recognised tuple" \
	grep -q "topology/qft: fabric $W/etc/fabric.json: PGFT($tuple), 324 hosts, 19 switch groups" "$LOG"
check "slurmctld logs the switch table" grep -q "topology/qft: switch table of 19 records on 2 levels" "$LOG"
check "slurmd loaded the plugin too" grep -q "topology/qft" "$W"/log/slurmd.*.log

# qft status finds StateSaveLocation through scontrol (the wrapper in $BIN)
PATH=$BIN:$PATH "$QFT" status >"$T/status.start" 2>&1
check "qft status: the fabric in use, loaded" \
	grep -q "^fabric in use: $W/etc/fabric.json (json), loaded " "$T/status.start"
check "qft status: its tree and routing" \
	grep -q "^  tree PGFT($tuple), 324 hosts, 19 switch groups, routing dmodk$" "$T/status.start"
check "qft status: the last load was not refused" \
	grep -q "^last load: .* $W/etc/fabric.json: loaded$" "$T/status.start"
check "qft status: no node cut off" grep -q "^nodes cut off (.*) 0$" "$T/status.start"
check "qft status: no destination lost congestion freedom" \
	grep -q "^destinations that lost congestion freedom (routing dmodk) 0 of 324 attached hosts$" "$T/status.start"

"$BIN/scontrol" show topology >"$T/topology.txt"
expect_eq "switches in scontrol show topology" "$(grep -c '^SwitchName=' "$T/topology.txt")" 19
leaf0=$(tree_names "$T/fabric.json" 0 18 | sort | paste -sd,)
got=$("$BIN/scontrol" show hostnames "$(sed -n 's/^SwitchName=L1-0 .*Nodes=\([^ ]*\).*/\1/p' "$T/topology.txt")" | sort | paste -sd,)
expect_eq "L1-0 holds tree hosts 0..17" "$got" "$leaf0"
check "the top switch L2-0 has the 18 leaves" grep -q '^SwitchName=L2-0 Level=1 LinkSpeed=200 Nodes=.* Switches=L1-\[0-17\]' "$T/topology.txt"
check "every switch record names the nodes of its subtree (qft topology-conf)" \
	switch_records_match "$T/topology.txt"
check "leaf link speed is 200 (4x HDR)" grep -q '^SwitchName=L1-5 Level=0 LinkSpeed=200 ' "$T/topology.txt"

# slurmctld's node table (scontrol show nodes lists it in table order).
"$BIN/scontrol" -o show nodes | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' >"$T/table.order"
tree_names "$T/fabric.json" >"$T/tree.order"
check "node table order is tree order" cmp -s "$T/table.order" "$T/tree.order"
check "and not name order" sh -c "! cmp -s '$T/table.order' '$T/nodes.byname'"

# cons_tres takes the lowest node indexes: an 18-node job gets leaf 0.
cd "$W" || finish
id=$("$BIN/sbatch" --parsable -N18 -o "$W/job-%j.out" --wrap 'echo $SLURM_JOB_NODELIST')
expect_eq "18-node batch job" "$(wait_job "$BIN" "$id")" COMPLETED
expect_eq "its nodes are leaf 0 in tree order" \
	"$("$BIN/scontrol" show hostnames "$(cat "$W/job-$id.out")" | sort | paste -sd,)" "$leaf0"
check "sbatch --switches=1 runs" sh -c "'$BIN/srun' -N18 --switches=1 true"
check "slurmctld alive after the jobs" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"

# reconfigure with a broken fabric keeps the tree; a fixed one is re-read
cp "$W/etc/fabric.json" "$T/fabric.good"
echo '{"format": "slurm-qft-fabric", "version": 1,' >"$W/etc/fabric.json"
"$BIN/scontrol" reconfigure
sleep 2
check "a broken fabric on reconfigure is logged, with its line, and refused" \
	reconfigure_rejected "$LOG" "topology/qft: $W/etc/fabric.json:2:"
check "slurmctld alive after reconfigure with a broken fabric" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
"$QFT" status --file "$W/state/qft-status.json" >"$T/status.refused" 2>&1
check "qft status: the last load was refused" \
	grep -q "^last load: .* $W/etc/fabric.json: refused, the fabric in use stays$" "$T/status.refused"
check "qft status: why, with the file and line" grep -q "^  $W/etc/fabric.json:2:" "$T/status.refused"
check "qft status: the fabric in use is still the start's" \
	grep -qF "$(grep '^fabric in use: ' "$T/status.start")" "$T/status.refused"
check "qft status: the file changed since it was loaded" \
	grep -q "^fabric file $W/etc/fabric.json changed since slurmctld loaded it (refused, above)$" "$T/status.refused"
"$BIN/scontrol" show topology >"$T/topology.kept"
expect_eq "switch table kept" "$(grep -c '^SwitchName=' "$T/topology.kept")" 19
# The nodes are ranked by the kept fabric too, so the kept switch table's
# bitmaps name the same nodes as its records (cons_tres reads the bitmaps).
"$BIN/scontrol" -o show nodes | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' >"$T/table.kept"
check "after the broken fabric: node table order is still tree order" cmp -s "$T/table.kept" "$T/tree.order"
check "after the broken fabric: every switch record names the nodes of its subtree" \
	switch_records_match "$T/topology.kept"
# shellcheck disable=SC2046
check "after the broken fabric: an 18-node --switches=1 job runs on one whole leaf, by name" \
	is_one_leaf $("$BIN/scontrol" show hostnames "$(timeout 60 "$BIN/srun" -N18 --switches=1 \
		printenv SLURM_JOB_NODELIST 2>/dev/null | sort -u | head -1)")
batch_on_one_leaf "after the broken fabric"
cp "$T/fabric.good" "$W/etc/fabric.json"
"$BIN/scontrol" reconfigure
sleep 2
expect_eq "fabric re-read after the fix" \
	"$(grep -c "topology/qft: fabric $W/etc/fabric.json: PGFT" "$LOG")" 2
"$BIN/scontrol" show topology >"$T/topology.fixed"
check "after the fix: every switch record names the nodes of its subtree" \
	switch_records_match "$T/topology.fixed"

# Fabric files mangled as a failing disk, a half-written copy or another
# tool would leave them, each put in place and reconfigured while a job
# runs: slurmctld answers each (loads it or refuses it, naming the file)
# and stays up, and the job keeps its nodes.
python3 - "$T/fabric.good" "$T/fuzz" <<'PY'
import json, os, random, sys
good, out = open(sys.argv[1], "rb").read(), sys.argv[2]
os.makedirs(out, exist_ok=True)
rng = random.Random(15)
f = json.loads(good)
sw, hosts = f["switches"], f["hosts"]
def semantic(change):
    g = json.loads(good)
    change(g)
    return json.dumps(g).encode()
cases = {
    "truncated-early": good[: len(good) // 7],
    "truncated-late": good[: len(good) - 40],
    "bytes-flipped": bytes(b ^ (1 << rng.randrange(8)) if rng.random() < 0.001 else b for b in good),
    "nul-bytes": good[:5000] + b"\0" * 64 + good[5064:],
    "link-to-unknown-guid": semantic(lambda g: g["links"][3].__setitem__(2, "0xdeadbeef00000001")),
    "port-999": semantic(lambda g: g["links"][5].__setitem__(1, 999)),
    "tree-garbage": semantic(lambda g: g.__setitem__("tree", "3;x,;;")),
    "duplicate-switch": semantic(lambda g: g["switches"].append(dict(g["switches"][0]))),
    "hosts-not-a-list": semantic(lambda g: g.__setitem__("hosts", 7)),
    "no-links": semantic(lambda g: g.__setitem__("links", [])),
}
for name, data in cases.items():
    open(os.path.join(out, name + ".json"), "wb").write(data)
PY
# fabric_outcomes: how many loads of etc/fabric.json the log shows, and how
# many refusals
fabric_outcomes() {
	local loaded refused
	loaded=$(grep -Ec "topology/qft: fabric $W/etc/fabric.json: (PGFT|QFT)" "$LOG")
	if [ "$SERIES" = 22.05 ]; then
		refused=$(grep -c "; keeping the fabric loaded from" "$LOG")
	else
		refused=$(grep -c "Resuming operation, reconfigure failed" "$LOG")
	fi
	echo "$loaded $refused"
}
long=$(cd "$W" && "$BIN/sbatch" --parsable -N4 -o /dev/null --wrap 'sleep 900')
wait_running "$W" "$long"
long_nodes=$("$BIN/squeue" -h -j "$long" -o %N)
for mangled in "$T"/fuzz/*.json; do
	name=$(basename "$mangled" .json)
	before=$(fabric_outcomes)
	cp "$mangled" "$W/etc/fabric.json"
	"$BIN/scontrol" reconfigure >/dev/null 2>&1
	for _ in $(seq 60); do
		[ "$(fabric_outcomes)" != "$before" ] && "$BIN/scontrol" ping 2>/dev/null | grep -q 'is UP' && break
		sleep 0.5
	done
	after=$(fabric_outcomes)
	if [ "${after%% *}" -gt "${before%% *}" ]; then
		say "fuzz $name: loaded"
	elif [ "${after##* }" -gt "${before##* }" ]; then
		say "fuzz $name: refused: $(grep "topology/qft: .*$W/etc/fabric.json" "$LOG" | tail -1 | cut -c1-200)"
	fi
	check "fuzz $name: slurmctld answered the reconfigure and is up" \
		sh -c "[ '$after' != '$before' ] && '$BIN/scontrol' ping | grep -q 'is UP'"
	[ "$name" != no-links ] || check "fuzz no-links: refused, no host has a cable into the tree" \
		grep -q "topology/qft: fabric $W/etc/fabric.json: none of its 324 hosts has a cable into the tree" "$LOG"
done
expect_eq "fuzz: the long job still runs on its nodes" \
	"$("$BIN/squeue" -h -j "$long" -o '%T %N')" "RUNNING $long_nodes"
cp "$T/fabric.good" "$W/etc/fabric.json"
"$BIN/scontrol" reconfigure
sleep 2
"$BIN/scontrol" show topology >"$T/topology.after-fuzz"
check "after the mangled fabrics and the good one again: every switch record names the nodes of its subtree" \
	switch_records_match "$T/topology.after-fuzz"
batch_on_one_leaf "after the mangled fabrics"
"$BIN/scancel" "$long"
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 2. nodes missing on either side: warnings, the cluster runs ---------
tree_names "$T/fabric.json" 0 300 >"$T/nodes.part"
printf 'x001\nx002\n' >>"$T/nodes.part"
W=$T/c2
if start_cluster "$W" --node-file "$T/nodes.part" -p "$T/plugins" -t topology/qft \
	-c "$T/qft.conf" -c "$T/fabric.json"; then
	ok "cluster with mismatched nodes starts"
	check "slurm.conf nodes missing from the fabric are named" \
		grep -q "topology/qft: WARNING: 2 nodes of slurm.conf are not in fabric $W/etc/fabric.json, they join no switch and rank last: x\[001-002\]" "$W/log/slurmctld.log"
	check "fabric hosts missing from slurm.conf are named" \
		grep -q "topology/qft: 24 hosts of fabric $W/etc/fabric.json are not nodes of slurm.conf and are ignored" "$W/log/slurmctld.log"
	"$QFT" status --file "$W/state/qft-status.json" >"$T/status.mismatch" 2>&1
	check "qft status names the nodes cut off" grep -q '^nodes cut off (.*) 2: x\[001-002\]$' "$T/status.mismatch"
	check "qft status names the fabric hosts not in slurm.conf" \
		grep -q '^fabric hosts not in slurm.conf (ignored) 24: ' "$T/status.mismatch"
	expect_eq "extra nodes rank last" "$("$W/bin/scontrol" -o show nodes | sed -n 's/^NodeName=\([^ ]*\) .*/\1/p' | tail -2 | paste -sd,)" "x001,x002"
else
	cat "$W.start.out"
	bad "cluster with mismatched nodes did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 3. SLURM_TOPOLOGY_ADDR: real (not front-end) slurmd, one per node --
"$QFT" gen pgft "2;2,2;1,2;1,1" -o "$T/fabric4.json" 2>/dev/null
printf 'n0004\nn0002\nn0001\nn0003\n' >"$T/nodes4"
mkdir -p "$T/c3conf" && echo "FabricFile=fabric4.json" >"$T/c3conf/qft.conf"
W=$T/c3
if start_cluster "$W" --real-nodes --node-file "$T/nodes4" -p "$T/plugins" -t topology/qft \
	-c "$T/c3conf/qft.conf" -c "$T/fabric4.json"; then
	out=$(cd "$W" && timeout 60 "$W/bin/srun" -N4 -l sh -c 'echo $SLURMD_NODENAME $SLURM_TOPOLOGY_ADDR $SLURM_TOPOLOGY_ADDR_PATTERN' 2>&1 | grep -v '^srun: ' | sed 's/^[0-9]*: //' | sort)
	expect_eq "topology addresses seen by the tasks" "$(echo "$out" | paste -sd,)" \
		"n0001 L2-0.L1-0.n0001 switch.switch.node,n0002 L2-0.L1-0.n0002 switch.switch.node,n0003 L2-0.L1-1.n0003 switch.switch.node,n0004 L2-0.L1-1.n0004 switch.switch.node"
else
	cat "$W.start.out"
	bad "real-node cluster did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 4. ibnetdiscover output as the fabric, one cable missing -----------
# (the fixture is real ibnetdiscover output from ibsim, tests/data/ib)
python3 - "$REPO/tests/data/ib/pgft-2-4/ibnetdiscover.txt" "$T/ibnet.txt" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().split("\n")
out, node = [], None
for l in lines:
    m = re.match(r'(Switch|Ca)\s+\d+ "([^"]+)"', l)
    if m:
        node = m.group(2)
    # the cable "qft L1 3.0" port 8 <-> "qft L2 3.0" port 4, from both ends
    if (node == "S-0002c90401000003" and l.startswith("[8]")) or \
       (node == "S-0002c90402000003" and l.startswith("[4]")):
        continue
    out.append(l)
open(sys.argv[2], "w").write("\n".join(out))
PY
mkdir -p "$T/c4conf"
printf 'FabricFile=ibnet.txt\nFabricFormat=ibnetdiscover\n' >"$T/c4conf/qft.conf"
W=$T/c4
if start_cluster "$W" -n 16 -p "$T/plugins" -t topology/qft -c "$T/c4conf/qft.conf" -c "$T/ibnet.txt"; then
	check "ibnetdiscover fabric recognised in slurmctld" \
		grep -q "topology/qft: fabric $W/etc/ibnet.txt: PGFT(2;4,4;1,4;1,1), 16 hosts" "$W/log/slurmctld.log"
	check "the missing cable is named with both switches" \
		grep -q "topology/qft: WARNING: $W/etc/ibnet.txt: missing cable L1 3.0 \"qft L1 3.0\" 0x0002c90401000003 up-port 3 -> L2 3.0 \"qft L2 3.0\" 0x0002c90402000003" "$W/log/slurmctld.log"
	expect_eq "switches from ibnetdiscover" "$("$W/bin/scontrol" show topology | grep -c '^SwitchName=')" 5
else
	cat "$W.start.out"
	bad "cluster on an ibnetdiscover fabric did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 5. start-up errors: slurmctld refuses to start and says why ---------
startup_error() { # startup_error NAME NEEDLE QFT.CONF [FILES...]
	local name=$1 needle=$2 conf=$3
	shift 3
	local w=$T/$name args=()
	for f in "$@"; do args+=(-c "$f"); done
	[ -n "$conf" ] && args+=(-c "$conf")
	if QFT_START_TIMEOUT=15 start_cluster "$w" -n 4 -p "$T/plugins" -t topology/qft "${args[@]}"; then
		bad "$name: slurmctld started"
	elif grep -qF -- "$needle" "$w/log/slurmctld.log"; then
		ok "$name: slurmctld refused to start: $needle"
	else
		tail -5 "$w/log/slurmctld.log"
		bad "$name: log lacks: $needle"
	fi
	if grep -qi "segfault\|Segmentation\|core dumped" "$w/log/slurmctld.log" "$w/log/"*.out 2>/dev/null; then
		bad "$name: a crash"
	fi
	"$HARNESS" stop -w "$w" >/dev/null 2>&1
}
mkdir -p "$T/bad"
echo "FabricFile=nonexistent.json" >"$T/bad/qft.conf"
startup_error missing-fabric "fatal: topology/qft: $T/missing-fabric/etc/nonexistent.json: cannot open: No such file or directory" "$T/bad/qft.conf"
"$QFT" status --file "$T/missing-fabric/state/qft-status.json" >"$T/status.missing" 2>&1
check "missing-fabric: qft status: no fabric in use" grep -q '^fabric in use: none$' "$T/status.missing"
check "missing-fabric: qft status: the refusal, naming the file" \
	grep -q "^  $T/missing-fabric/etc/nonexistent.json: cannot open" "$T/status.missing"
startup_error missing-conf "fatal: topology/qft: cannot read $T/missing-conf/etc/qft.conf: No such file or directory" ""
mkdir -p "$T/bad2"
printf 'FabricFile=fabric.json\nFabric=x\n' >"$T/bad2/qft.conf"
startup_error unknown-key "fatal: topology/qft: $T/unknown-key/etc/qft.conf:2: unknown key Fabric=x, expected one of the keys of qft.conf(5)" "$T/bad2/qft.conf" "$T/fabric.json"
head -c 3000 "$T/fabric.json" >"$T/bad/fabric.json"
echo "FabricFile=fabric.json" >"$T/bad/qft2.conf"
mkdir -p "$T/bad3" && cp "$T/bad/qft2.conf" "$T/bad3/qft.conf"
startup_error truncated-fabric "fatal: topology/qft: $T/truncated-fabric/etc/fabric.json:" "$T/bad3/qft.conf" "$T/bad/fabric.json"
mkdir -p "$T/bad4"
printf 'FabricFile=fabric.json\nFabricFormat=xml\n' >"$T/bad4/qft.conf"
startup_error bad-format "fatal: topology/qft: $T/bad-format/etc/qft.conf:2: FabricFormat=xml, expected json or ibnetdiscover" "$T/bad4/qft.conf" "$T/fabric.json"

# --- 6. one fabric load, shared by topology/qft and select/rlft ----------
W=$T/c6
if start_cluster "$W" --node-file "$T/nodes.byname" -p "$T/plugins" -t topology/qft \
	-s select/rlft -c "$T/qft.conf" -c "$T/fabric.json"; then
	BIN=$W/bin
	LOG=$W/log/slurmctld.log
	ok "cluster with topology/qft and select/rlft up"
	expect_eq "the fabric is parsed once at start" "$(grep -c 'topology/qft: fabric .*: PGFT' "$LOG")" 1
	check "select/rlft places on topology/qft's fabric" \
		grep -q "select/rlft: fabric $W/etc/fabric.json (loaded by topology/qft): PGFT($tuple), 324 hosts" "$LOG"
	check "select/rlft parses no fabric of its own" sh -c \
		"! grep -q 'select/rlft: fabric $W/etc/fabric.json: PGFT\|select/rlft: .*loading the fabric' '$LOG'"
	cp "$W/etc/fabric.json" "$T/fabric.good6"
	echo '{"format": "slurm-qft-fabric",' >"$W/etc/fabric.json"
	"$BIN/scontrol" reconfigure
	sleep 2
	expect_eq "after a broken fabric both keep the same one (select/rlft takes topology/qft's again)" \
		"$(grep -c "select/rlft: fabric $W/etc/fabric.json (loaded by topology/qft)" "$LOG")" \
		"$([ "$SERIES" = 22.05 ] && echo 2 || echo 1)"
	batch_on_one_leaf "select/rlft after the broken fabric"
	cp "$T/fabric.good6" "$W/etc/fabric.json"
	"$BIN/scontrol" reconfigure
	sleep 2
	expect_eq "after the fix: one more parse" "$(grep -c 'topology/qft: fabric .*: PGFT' "$LOG")" 2
	# 22.05: start, the broken reconfigure (the kept fabric), the fix;
	# 24.11: the broken reconfigure's slurmctld stops before select/rlft
	expect_eq "  and select/rlft took it" \
		"$(grep -c "select/rlft: fabric $W/etc/fabric.json (loaded by topology/qft)" "$LOG")" \
		"$([ "$SERIES" = 22.05 ] && echo 3 || echo 2)"
	check "slurmctld alive" sh -c "'$BIN/scontrol' ping | grep -q 'is UP'"
else
	cat "$W.start.out"
	bad "cluster with topology/qft and select/rlft did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 7. select/rlft without topology/qft loads its own fabric, says so once
W=$T/c7
if start_cluster "$W" --node-file "$T/nodes.byname" -p "$T/plugins" -t topology/none \
	-s select/rlft -c "$T/qft.conf" -c "$T/fabric.json"; then
	BIN=$W/bin
	LOG=$W/log/slurmctld.log
	"$BIN/scontrol" reconfigure
	sleep 2
	# once per slurmctld: 24.11 reconfigures in a new one, and calls
	# topology/none topology/default
	expect_eq "select/rlft says once that it loads the fabric itself" \
		"$(grep -cE "select/rlft: TopologyPlugin is topology/(none|default), not topology/qft: loading the fabric of $W/etc/qft.conf here" "$LOG")" \
		"$([ "$SERIES" = 22.05 ] && echo 1 || echo 2)"
	expect_eq "  and loads it at start and on reconfigure" \
		"$(grep -c "select/rlft: fabric $W/etc/fabric.json: PGFT($tuple)" "$LOG")" 2
	id=$(cd "$W" && "$BIN/sbatch" --parsable -N18 -o "$W/job-%j.out" --wrap 'echo $SLURM_JOB_NODELIST')
	expect_eq "select/rlft alone: an 18-node batch job" "$(wait_job "$BIN" "$id")" COMPLETED
	# shellcheck disable=SC2046
	check "  its nodes are one whole leaf, by name" \
		is_one_leaf $("$BIN/scontrol" show hostnames "$(cat "$W/job-$id.out" 2>/dev/null)")
else
	cat "$W.start.out"
	bad "cluster with select/rlft and topology/none did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1

# --- 8. configless: real slurmd get their configs from slurmctld ---------
# qft.conf and the fabric stay on the controller (Slurm 22.05 ships
# slurm.conf, topology.conf, gres.conf, cgroup.conf, plugstack.conf, ...:
# src/common/fetch_config.c); slurmd needs neither.
W=$T/c8
if start_cluster "$W" --real-nodes --configless --node-file "$T/nodes4" -p "$T/plugins" \
	-t topology/qft -c "$T/c3conf/qft.conf" -c "$T/fabric4.json"; then
	BIN=$W/bin
	ok "configless cluster with topology/qft up (4 real slurmd)"
	check "slurmd runs on fetched configs, without qft.conf" sh -c \
		"[ -f '$W/spool/slurmd.n0001/conf-cache/slurm.conf' ] && [ ! -e '$W/spool/slurmd.n0001/conf-cache/qft.conf' ]"
	out=$(cd "$W" && timeout 60 "$BIN/srun" -N4 -l hostname 2>&1 | grep -vc '^srun: ')
	expect_eq "srun -N4 hostname" "$out" 4
	out=$(cd "$W" && timeout 60 "$BIN/srun" -N4 -l sh -c 'echo $SLURMD_NODENAME $SLURM_TOPOLOGY_ADDR' 2>&1 | grep -v '^srun: ' | sed 's/^[0-9]*: //' | sort | paste -sd,)
	expect_eq "topology addresses from slurmctld's switch table" "$out" \
		"n0001 L2-0.L1-0.n0001,n0002 L2-0.L1-0.n0002,n0003 L2-0.L1-1.n0003,n0004 L2-0.L1-1.n0004"
	id=$(cd "$W" && "$BIN/sbatch" --parsable -N2 -o "$W/job-%j.out" --wrap 'srun hostname')
	expect_eq "configless: a 2-node batch job with an srun" "$(wait_job "$BIN" "$id")" COMPLETED
	check "no slurmd logged a fatal error" sh -c "! grep -q 'fatal' '$W'/log/slurmd.*"
else
	cat "$W.start.out"
	grep -h "fatal" "$W"/log/slurmd.* 2>/dev/null | head -2
	bad "configless cluster with topology/qft did not start"
fi
"$HARNESS" stop -w "$W" >/dev/null 2>&1
finish

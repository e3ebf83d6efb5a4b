# SPDX-License-Identifier: GPL-2.0-or-later
# Per-link flow counts from ibutils' ibdm congestion analysis (ibdmCong*),
# for comparison with `qft score --link-loads`.  Run with ibdmsh:
#
#   ibdmsh ibdm-cong.tcl SUBNET.lst FDBS ROOTS TRACES OUT [REPORT]
#
#   SUBNET.lst  OpenSM's opensm-subnet.lst (the fabric: nodes, links, LIDs)
#   FDBS        OpenSM's opensm.fdbs (the LFTs)
#   ROOTS       node GUIDs of the tree's top switches (ranked 0), blank separated
#   TRACES      "STAGE SRC_LID DST_LID" per line (decimal), stages ascending
#   OUT         written: "STAGE FROM_GUID FROM_PORT TO_GUID TO_PORT COUNT" for
#               every port ibdm counted paths on, as qft --link-loads writes it;
#               "-": timing only (trace and clear, no ibdmCongDump)
#   REPORT      optional: ibdmCongReport's text after the last stage
#
# Per stage: ibdmCongTrace for every pair, ibdmCongDump (the per-port lists of
# (src, dst) pairs, "PORT:<name> NUM:<n>" headers), then ibdmCongClear (which
# ends the stage: it folds the lists into its histograms and empties them).
# Prints key=value lines (timings in seconds) on stdout, after ibdm's own
# "-I-" lines.  Exit status 0 when every call succeeded.

if {[llength $argv] < 5} {
	puts stderr "usage: ibdmsh ibdm-cong.tcl SUBNET.lst FDBS ROOTS TRACES OUT \[REPORT\]"
	exit 2
}
lassign $argv subnetFile fdbFile rootsFile tracesFile outFile reportFile
set errors 0
proc now {} { return [clock microseconds] }
proc secs {us} { return [format %.6f [expr {$us / 1e6}]] }

# --- the fabric: topology from subnet.lst, LFTs from opensm.fdbs
set t0 [now]
set fab [new_IBFabric]
if {[IBFabric_parseSubnetLinks $fab $subnetFile]} { puts stderr "ibdm-cong: cannot parse $subnetFile"; exit 1 }
if {[IBFabric_parseFdbFile $fab $fdbFile]} { puts stderr "ibdm-cong: errors in $fdbFile"; exit 1 }

# --- rank it from the roots, before ibdmCongInit (which takes the highest
# rank): ibdmCongClear walks the nodes rank by rank (up, then down) and
# empties the list of every port it visits.  Unranked nodes keep rank 255
# and it then empties no list at all: the counts add up across stages.
set f [open $rootsFile]; set rootGuids [read $f]; close $f
set roots {}
foreach g $rootGuids {
	set n [IBFabric_getNodeByGuid $fab $g]
	if {$n eq "" || $n eq "NULL"} { puts stderr "ibdm-cong: no root node $g"; exit 1 }
	lappend roots $n
}
if {[ibdmRankFabricByRoots $fab $roots]} { puts stderr "ibdm-cong: ranking failed"; exit 1 }

# --- ibdm port names (as CongDump prints them) -> "GUID PORT REMOTE_GUID REMOTE_PORT"
set nports 0
foreach pair [IBFabric_NodeByName_get $fab] {
	set node [lindex $pair 1]
	set guid [IBNode_guid_get $node]
	for {set pn 1} {$pn <= [IBNode_numPorts_get $node]} {incr pn} {
		set p [IBNode_getPort $node $pn]
		if {$p eq "" || $p eq "NULL"} continue
		set r [IBPort_p_remotePort_get $p]
		if {$r eq "" || $r eq "NULL"} continue
		set link([IBPort_getName $p]) \
			"$guid [IBPort_num_get $p] [IBNode_guid_get [IBPort_p_node_get $r]] [IBPort_num_get $r]"
		incr nports
	}
}
if {[ibdmCongInit $fab]} { puts stderr "ibdm-cong: ibdmCongInit failed"; exit 1 }
set tLoad [expr {[now] - $t0}]

# --- the traces, grouped by stage
set f [open $tracesFile]
set stages {}
while {[gets $f line] >= 0} {
	if {[llength $line] != 3} continue
	lassign $line st s d
	if {![info exists pairs($st)]} { lappend stages $st; set pairs($st) {} }
	lappend pairs($st) $s $d
}
close $f

# "PORT:<name> NUM:<n>" header lines of ibdmCongDump with n > 0, as a flat
# list "name n ...".  The dump lists every port CongInit set up, then the
# n "<slid> <dlid>" pairs of each; the Tcl string ends in a NUL (the
# wrapper sets size()+1 bytes).
proc dumpCounts {fab} {
	set res {}
	foreach line [split [ibdmCongDump $fab] "\n"] {
		if {![string equal -length 5 $line "PORT:"]} continue
		set k [string last " NUM:" $line]
		set num [string range $line [expr {$k + 5}] end]
		if {$num > 0} { lappend res [string range $line 5 [expr {$k - 1}]] $num }
	}
	return $res
}

# one stage: trace the pairs, optionally write the counts, clear; adds the
# microseconds spent to the global counters
proc stage {fab st pairs out} {
	global errors tTrace tDump tClear nTraced notCleared link
	set t [now]
	foreach {s d} $pairs {
		if {[ibdmCongTrace $fab $s $d]} {
			puts stderr "ibdm-cong: stage $st: ibdmCongTrace $s $d failed"
			incr errors
		}
	}
	set t1 [now]
	incr nTraced [expr {[llength $pairs] / 2}]
	incr tTrace [expr {$t1 - $t}]
	if {$out ne ""} {
		foreach {name num} [dumpCounts $fab] {
			if {![info exists link($name)]} {
				puts stderr "ibdm-cong: stage $st: unknown port $name in ibdmCongDump"
				incr errors
				continue
			}
			puts $out "$st $link($name) $num"
		}
	}
	set t2 [now]
	incr tDump [expr {$t2 - $t1}]
	if {[ibdmCongClear $fab]} { puts stderr "ibdm-cong: ibdmCongClear failed"; incr errors }
	incr tClear [expr {[now] - $t2}]
	# CongClear must have emptied every list (else the next stage adds up)
	if {$out ne ""} { incr notCleared [expr {[llength [dumpCounts $fab]] / 2}] }
}

set counts [expr {$outFile ne "-"}]
set out ""
if {$counts} { set out [open $outFile w] }
set tTrace 0; set tDump 0; set tClear 0; set nTraced 0; set notCleared 0
foreach st $stages { stage $fab $st $pairs($st) $out }
if {$counts} { close $out }
if {$notCleared} {
	puts stderr "ibdm-cong: ibdmCongClear left $notCleared ports with paths"
	incr errors
}
if {$reportFile ne ""} {
	set f [open $reportFile w]
	puts -nonewline $f [string map [list "\0" ""] [ibdmCongReport $fab]]
	close $f
}
ibdmCongCleanup $fab

set ns [llength $stages]
puts "ibdm_ports=$nports"
puts "ibdm_stages=$ns"
puts "ibdm_traced=$nTraced"
puts "ibdm_load_seconds=[secs $tLoad]"
puts "ibdm_trace_seconds=[secs $tTrace]"
puts "ibdm_dump_seconds=[secs $tDump]"
puts "ibdm_clear_seconds=[secs $tClear]"
if {$ns} {
	puts "ibdm_trace_clear_per_stage=[secs [expr {($tTrace + $tClear) / double($ns)}]]"
	if {$counts} { puts "ibdm_counts_per_stage=[secs [expr {($tTrace + $tDump + $tClear) / double($ns)}]]" }
}
puts "ibdm_errors=$errors"
exit [expr {$errors ? 1 : 0}]

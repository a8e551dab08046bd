# From the project's ns-2.35 reference peer, unchanged; used by validation/compare_ns2.py.
# chain.tcl - n-hop chain: n+1 nodes `spacing` m apart on a line, `nflows` FTP/TCP bulk flows
# from node 0 to node n (all of them along the whole chain, as seed 001's Table 1 reads).
#
#   ns chain.tcl -hops 4 -routing AODV -maxcwnd 3 -seed 1 -duration 120
#
# Prints one JSON line (README.md). Options: ns chain.tcl -help 1
source [file join [file dirname [info script]] common.tcl]

defopt hops    4     "number of hops n (n+1 nodes)"
defopt spacing 200.0 "distance between neighbours (m)"
defopt nflows  1     "number of flows, all from node 0 to node n"
defopt stagger 0.0   "flow k starts at start + k*stagger (s)"
defopt reverse 0     "1: every other flow runs n -> 0 (seed 001 read as two opposite flows)"
parse_options $argv
configure_defaults

set n [expr {$opt(hops) + 1}]
set pos {}
for {set i 0} {$i < $n} {incr i} { lappend pos [list [expr {$i * $opt(spacing)}] 0.0] }
setup_network $n [expr {$opt(hops) * $opt(spacing) + 1.0}] 10.0 $pos

for {set k 0} {$k < $opt(nflows)} {incr k} {
    set s 0; set d $opt(hops)
    if {$opt(reverse) && $k % 2 == 1} { set s $opt(hops); set d 0 }
    add_flow $s $d [expr {$opt(start) + $k * $opt(stagger)}]
}
run_and_report chain [list "\"hops\":$opt(hops)" "\"spacing\":[num $opt(spacing) 1]" "\"n_flows\":$opt(nflows)"] $n

# From the project's ns-2.35 reference peer, unchanged; used by validation/compare_ns2.py.
# rwp.tcl - N mobile nodes, random waypoint (ns-2's setdest), k FTP/TCP bulk flows between
# random distinct (src, dst) pairs; AODV by default (any of AODV | DSR | DSDV; static makes no
# sense with mobility). Flow i starts at start + U[0, startSpread] s.
#
#   ns rwp.tcl -nodes 150 -width 2000 -height 2000 -flows 32 -duration 200 -seed 1
#
# The movement: -scen FILE (a setdest file, e.g. from run.sh) or, without it, a new file made
# here by `setdest -v 1 -n N -p pause -M maxSpeed -t T -x W -y H` (setdest seeds itself from
# the clock, so such a run is not reproducible: the file is kept, see "scen" in the JSON line,
# and can be passed back with -scen). Flow pairs and start times come from -seed.
source [file join [file dirname [info script]] common.tcl]

defopt nodes       150    "number of nodes"
defopt width       2000.0 "area width (m)"
defopt height      2000.0 "area height (m)"
defopt maxSpeed    10.0   "setdest -M: speeds U(0, maxSpeed] m/s (setdest version 1)"
defopt pause       0.0    "setdest -p: pause time (s)"
defopt flows       32     "number of TCP flows"
defopt startSpread 5.0    {flow start times spread over start .. start + startSpread (s)}
defopt scen        ""     "setdest movement file (default: make one with setdest -v 1)"
defopt scenDir     /tmp   "where a new setdest file is written"
defopt movement    setdest "setdest (run setdest -v 1 when no -scen is given) | tcl (the same model drawn here from -seed: reproducible, and fast for many nodes)"
set opt(routing)  AODV
set opt(duration) 200.0
parse_options $argv
if {$opt(routing) eq "static"} { usage_exit "rwp: static routing makes no sense with mobility" }
configure_defaults

set N $opt(nodes)
if {$opt(scen) eq "" && $opt(movement) eq "tcl"} {
    # setdest -v 1's model: uniform initial positions; each node pauses `pause` s, then goes to a
    # uniform destination at a speed U(0, maxSpeed], and so on until the end of the run.
    set mrng [new RNG]
    $mrng seed [expr {$opt(seed) + 1000003}]
    set T [expr {$opt(warmup) + $opt(duration)}]
    set opt(scen) [file join $opt(scenDir) [format "rwp-tcl-n%d-%gx%g-p%g-M%g-t%g-seed%d.tcl" $N \
        $opt(width) $opt(height) $opt(pause) $opt(maxSpeed) $T $opt(seed)]]
    set fo [open $opt(scen) w]
    for {set i 0} {$i < $N} {incr i} {
        set x [expr {[$mrng uniform 0 1] * $opt(width)}]
        set y [expr {[$mrng uniform 0 1] * $opt(height)}]
        puts $fo "\$node_($i) set X_ $x\n\$node_($i) set Y_ $y\n\$node_($i) set Z_ 0.0"
        set t $opt(pause)
        while {$t < $T} {
            set dx [expr {[$mrng uniform 0 1] * $opt(width)}]
            set dy [expr {[$mrng uniform 0 1] * $opt(height)}]
            set v [expr {(1.0 - [$mrng uniform 0 1]) * $opt(maxSpeed)}]
            puts $fo "\$ns_ at $t \"\$node_($i) setdest $dx $dy $v\""
            set t [expr {$t + hypot($dx - $x, $dy - $y) / $v + $opt(pause)}]
            set x $dx; set y $dy
        }
    }
    close $fo
} elseif {$opt(scen) eq ""} {
    set opt(scen) [file join $opt(scenDir) [format "scen-n%d-%gx%g-p%g-M%g-t%g-%d-%d.tcl" $N \
        $opt(width) $opt(height) $opt(pause) $opt(maxSpeed) [expr {$opt(warmup) + $opt(duration)}] [pid] [clock seconds]]]
    # (setdest writes a .rand_state file in its working directory: run it in scenDir)
    exec sh -c "cd '$opt(scenDir)' && exec setdest -v 1 -n $N -p $opt(pause) -M $opt(maxSpeed) \
        -t [expr {$opt(warmup) + $opt(duration)}] -x $opt(width) -y $opt(height)" > $opt(scen)
}
setup_network $N $opt(width) $opt(height) {} $opt(scen)

# flow pairs and start times from a generator of our own, seeded with -seed
set frng [new RNG]
$frng seed $opt(seed)
if {$opt(flows) > $N * ($N - 1)} { usage_exit "too many flows" }
array set used {}
for {set i 0} {$i < $opt(flows)} {incr i} {
    while 1 {
        set s [$frng integer $N]
        set d [$frng integer $N]
        if {$s != $d && ![info exists used($s,$d)]} break
    }
    set used($s,$d) 1
    add_flow $s $d [expr {$opt(start) + [$frng uniform 0 $opt(startSpread)]}]
}
run_and_report rwp [list "\"width\":[num $opt(width) 1]" "\"height\":[num $opt(height) 1]" \
    "\"max_speed\":[num $opt(maxSpeed) 2]" "\"pause\":[num $opt(pause) 2]" "\"n_flows\":$opt(flows)" \
    "\"scen\":\"$opt(scen)\"" "\"god_lines_skipped\":$god_lines_skipped"] $N

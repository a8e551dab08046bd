# From the project's ns-2.35 reference peer, unchanged; used by validation/compare_ns2.py.
# common.tcl - shared set-up of the ns-2.35 reference-peer scenarios (chain.tcl, grid.tcl,
# rwp.tcl): options, radio/MAC/queue/routing configuration, TCP flows, counters and the
# one-line JSON report. Stock ns-2.35 only (Debian package `ns2`); nothing is patched.
#
# Every option is `-name value`; `ns chain.tcl -help 1` lists them with their defaults.
# See README.md for the settings, the output fields and the departures from the papers.

set ::t_script_ms [clock clicks -milliseconds]

# ------------------------------------------------------------------------------------------
# options (name default help). Scenario scripts may change defaults before parse_options.
array set opt {}
set ::opt_order {}
proc defopt {name value help} {
    global opt opt_help
    set opt($name) $value
    set opt_help($name) $help
    if {[lsearch -exact $::opt_order $name] < 0} { lappend ::opt_order $name }
}

defopt routing   static  "static | AODV | DSR | DSDV (case-insensitive). static = DSDV that never expires a route and ignores MAC failures, measured after a warm-up (README)"
defopt maxcwnd   0       "max outstanding segments W (0 = unclamped: window_ = floor(rwnd / mss) = 44)"
defopt clamp     window  "how maxcwnd applies: window (Agent/TCP window_ = W, the papers') | maxcwnd (maxcwnd_ = W, window_ from rwnd)"
defopt rwnd      65535   "receiver window in bytes used when unclamped (window_ = floor(rwnd/mss))"
defopt tcp       Newreno {Tahoe | Reno | Newreno | Sack1 (Agent/TCP or Agent/TCP/<variant>)}
defopt delack    1       "1 = TCPSink/DelAck (ACK every 2nd segment, interval_ timer), 0 = ACK every segment"
defopt delackInterval 0.1 "DelAck interval_ (s)"
defopt mss       1460    "TCP packetSize_ (payload bytes)"
defopt initWin   2       "TCP windowInit_ (segments)"
defopt minrto    0.2     "TCP minrto_ (s)"
defopt rtxInit   3.0     "TCP rtxcur_init_ (s): RTO before the first RTT sample"
defopt seed      1       "ns-2 defaultRNG seed (>= 1)"
defopt duration  120.0   "measured simulated seconds (after the warm-up)"
defopt start     1.0     "TCP start time (s, after the warm-up)"
defopt warmup    -1      "seconds simulated before time 0 of the measurement (-1: 20 s for static, 0 otherwise)"
defopt rts       300     "Mac/802_11 RTSThreshold_ in ns-2 bytes (MAC frame incl. 24 B PLCP + 34 B MAC/FCS). 300: RTS for TCP data, not TCP ACKs. 0: RTS for every unicast (ns-2 default)"
defopt ifq       50      "interface queue length (PriQueue; CMUPriQueue for DSR)"
defopt dataRate  2Mb     "Mac/802_11 dataRate_"
defopt basicRate 1Mb     "Mac/802_11 basicRate_ (RTS, CTS, ACK, broadcasts)"
defopt shortRetry 7      "Mac/802_11 ShortRetryLimit_"
defopt longRetry 4       "Mac/802_11 LongRetryLimit_"
defopt rxThresh  3.652e-10 "Phy/WirelessPhy RXThresh_ (W; 250 m)"
defopt csThresh  1.559e-11 "Phy/WirelessPhy CSThresh_ (W; 550 m)"
defopt cpThresh  10.0    "Phy/WirelessPhy CPThresh_ (capture ratio, linear)"
defopt dsdvPerup 15      "DSDV perup_ (s, periodic full dump)"
defopt trace     ""      "file for ns-2's trace-all (debugging only; empty = no tracing at all)"
defopt verbose   0       "1: set-up details on stderr"
defopt help      0       "print the options and exit"

proc parse_options {argv} {
    global opt
    if {[llength $argv] % 2 != 0} { usage_exit "options come in pairs: -name value" }
    foreach {k v} $argv {
        set name [string trimleft $k -]
        if {![info exists opt($name)]} { usage_exit "unknown option $k" }
        set opt($name) $v
    }
    if {$opt(help)} { usage_exit "" 0 }
    # normalise
    set r [string tolower $opt(routing)]
    switch -- $r {
        static { set opt(routing) static }
        aodv   { set opt(routing) AODV }
        dsr    { set opt(routing) DSR }
        dsdv   { set opt(routing) DSDV }
        default { usage_exit "unknown -routing $opt(routing)" }
    }
    set t [string tolower $opt(tcp)]
    switch -- $t {
        tahoe   { set opt(tcp) Tahoe }
        reno    { set opt(tcp) Reno }
        newreno { set opt(tcp) Newreno }
        sack1 - sack { set opt(tcp) Sack1 }
        default { usage_exit "unknown -tcp $opt(tcp)" }
    }
    if {$opt(clamp) ne "window" && $opt(clamp) ne "maxcwnd"} { usage_exit "unknown -clamp $opt(clamp)" }
    if {$opt(warmup) < 0} {
        set opt(warmup) [expr {$opt(routing) eq "static" ? 20.0 : 0.0}]
    }
    if {$opt(seed) < 1} { usage_exit "-seed must be >= 1" }
}

proc usage_exit {msg {rc 2}} {
    global opt opt_help
    if {$msg ne ""} { puts stderr "error: $msg" }
    puts stderr "usage: ns [info script] \[-option value ...\]"
    foreach n $::opt_order {
        puts stderr [format "  -%-15s %-10s %s" $n "($opt($n))" $opt_help($n)]
    }
    exit $rc
}

# ------------------------------------------------------------------------------------------
# The radio, MAC and queue: ns-2 (CMU Monarch) defaults unless set above.
proc configure_defaults {} {
    global opt defaultRNG
    $defaultRNG seed $opt(seed)

    Mac/802_11 set dataRate_  $opt(dataRate)
    Mac/802_11 set basicRate_ $opt(basicRate)
    Mac/802_11 set RTSThreshold_ $opt(rts)
    Mac/802_11 set ShortRetryLimit_ $opt(shortRetry)
    Mac/802_11 set LongRetryLimit_ $opt(longRetry)

    Phy/WirelessPhy set RXThresh_ $opt(rxThresh)
    Phy/WirelessPhy set CSThresh_ $opt(csThresh)
    Phy/WirelessPhy set CPThresh_ $opt(cpThresh)
    # Pt_ 0.28183815 W, freq_ 914 MHz, L_ 1, antenna 1.5 m: ns-2 defaults (ns-default.tcl)

    # TCP (class defaults, so every agent gets them)
    Agent/TCP set packetSize_ $opt(mss)
    Agent/TCP set windowInit_ $opt(initWin)
    Agent/TCP set minrto_ $opt(minrto)
    Agent/TCP set rtxcur_init_ $opt(rtxInit)
    Agent/TCPSink/DelAck set interval_ $opt(delackInterval)
    Agent/TCPSink/Sack1/DelAck set interval_ $opt(delackInterval)

    # DSDV: quiet agents (verbose_ only formats trace lines)
    Agent/DSDV set verbose_ 0
    Agent/DSDV set perup_ $opt(dsdvPerup)
    if {$opt(routing) eq "static"} {
        # "static": DSDV whose neighbour timeout (min_update_periods_ x perup_) never
        # expires and that drops (does not reroute) a packet on a MAC failure (use_mac_ 0,
        # the default): once converged the routes never change, like static routes.
        # wst0_ 0: no weighted settling delay, so a new route is advertised at once (in a
        # triggered update, at most one a second) and a chain of n hops converges in about
        # n seconds instead of about 12 s a hop.
        Agent/DSDV set min_update_periods_ 1000000
        Agent/DSDV set use_mac_ 0
        Agent/DSDV set wst0_ 0
    }
}

# Nodes on hop-count shortest paths (BFS on the unit-disk graph of range `range` m, lowest
# node id first, as the ns-3 peer's static routes) from each src to its dst; `pairs` is a list
# of {src dst}.
proc path_nodes {pos pairs range} {
    set n [llength $pos]
    for {set i 0} {$i < $n} {incr i} {
        set adj($i) {}
        lassign [lindex $pos $i] xi yi
        for {set j 0} {$j < $n} {incr j} {
            if {$i == $j} continue
            lassign [lindex $pos $j] xj yj
            if {hypot($xi - $xj, $yi - $yj) <= $range} { lappend adj($i) $j }
        }
    }
    array set on {}
    foreach pr $pairs {
        lassign $pr src dst
        # BFS from dst: next($v) = neighbour of v one hop closer to dst
        array unset next; array unset seen
        set seen($dst) 1; set q [list $dst]
        while {[llength $q] > 0} {
            set u [lindex $q 0]; set q [lrange $q 1 end]
            foreach v $adj($u) {
                if {![info exists seen($v)]} { set seen($v) 1; set next($v) $u; lappend q $v }
            }
        }
        if {![info exists seen($src)]} { error "static routing: no path from $src to $dst" }
        set v $src; set on($v) 1
        while {$v != $dst} { set v $next($v); set on($v) 1 }
    }
    return [lsort -integer [array names on]]
}

# Creates the simulator, the channel, the topography, GOD and `nn` nodes (global node_(i),
# positions from the list `pos` of {x y} pairs, or from a setdest file when `scen` is given).
# For -routing static, `pairs` ({src dst} of every flow) selects the nodes on the flows'
# shortest paths; the others are parked on a channel of their own (README: static routing).
proc setup_network {nn width height {pos {}} {scen ""} {pairs {}}} {
    global opt ns_ node_ god_ chan_ topo_ tracefd_
    set ns_ [new Simulator]
    if {$opt(trace) ne ""} {
        set tracefd_ [open $opt(trace) w]
        $ns_ trace-all $tracefd_
    }
    set topo_ [new Topography]
    $topo_ load_flatgrid $width $height
    set god_ [create-god $nn]
    set chan_ [new Channel/WirelessChannel]

    set rp $opt(routing)
    if {$rp eq "static"} { set rp DSDV }
    set ifqType Queue/DropTail/PriQueue
    if {$rp eq "DSR"} {
        # ns-2's DSR agent casts its interface queue to CMUPriQueue (dsragent.cc)
        set ifqType CMUPriQueue
    }
    set tr [expr {$opt(trace) ne "" ? "ON" : "OFF"}]
    $ns_ node-config -adhocRouting $rp \
        -llType LL -macType Mac/802_11 \
        -ifqType $ifqType -ifqLen $opt(ifq) \
        -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround \
        -phyType Phy/WirelessPhy -channel $chan_ -topoInstance $topo_ \
        -agentTrace $tr -routerTrace $tr -macTrace $tr -movementTrace OFF

    set active {}
    if {$opt(routing) eq "static" && [llength $pairs] > 0} {
        # 250 m: the unit-disk range of RXThresh_ under two-ray ground (ns-2 defaults)
        set range [expr {pow(0.28183815 * pow(1.5, 4) / $opt(rxThresh), 0.25)}]
        set active [path_nodes $pos $pairs $range]
        set chan_idle_ [new Channel/WirelessChannel]
    }
    set ::static_active $active
    for {set i 0} {$i < $nn} {incr i} {
        if {[llength $active] > 0} {
            $ns_ node-config -channel [expr {[lsearch -exact -integer $active $i] >= 0 ? $chan_ : $chan_idle_}]
        }
        set node_($i) [$ns_ node]
        $node_($i) random-motion 0
        if {[llength $pos] > 0} {
            lassign [lindex $pos $i] x y
            $node_($i) set X_ $x
            $node_($i) set Y_ $y
            $node_($i) set Z_ 0.0
        }
    }
    set ::god_lines_skipped 0
    if {$scen ne ""} {
        # setdest output: "$node_(i) set X_ ...", "$ns_ at t \"$node_(i) setdest x y v\"",
        # "$god_ set-dist i j d" (uses the globals ns_, node_, god_). The set-dist lines are
        # skipped: each one makes GOD recompute all-pairs hop counts (God::ComputeRoute, O(n^3)),
        # which took 99 % of the run time (150 nodes, 20 s: 526 s with them, 1.0 s without),
        # and stock ns-2.35's AODV, DSR and DSDV read GOD's hop counts only for trace lines.
        set f [open $scen r]
        set keep {}
        while {[gets $f line] >= 0} {
            if {[string first "god_ set-dist" $line] >= 0} { incr ::god_lines_skipped; continue }
            append keep $line "\n"
        }
        close $f
        uplevel #0 $keep
    }
    if {$opt(verbose)} {
        puts stderr "# routing $opt(routing) (agent $rp), ifq $ifqType $opt(ifq), rts $opt(rts), seed $opt(seed), warmup $opt(warmup)"
        if {[llength $active] > 0} { puts stderr "# static: nodes on the flows' paths: $active" }
    }
}

# Without trace-all, stock ns-2.35 cannot build a mobile node: add-interface always asks
# mobility-trace for the ARP and IFQ drop targets, which prints a warning on stdout and returns
# "" (then `drop-target ""` fails). Without a trace file, hand out the simulator's null agent
# instead (it frees what it gets), so that no trace object exists and nothing is formatted.
Node/MobileNode instproc mobility-trace { ttype atype } {
    set ns [Simulator instance]
    set tracefd [$ns get-ns-traceall]
    if { $tracefd == "" } {
        return [$ns set nullAgent_]
    }
    set T [new CMUTrace/$ttype $atype]
    $T newtrace [Simulator set WirelessNewTrace_]
    $T tagged [Simulator set TaggedTrace_]
    $T target [$ns nullagent]
    $T attach $tracefd
    $T set src_ [$self id]
    $T node $self
    return $T
}

# ------------------------------------------------------------------------------------------
# flows
set ::flows {}

# One FTP (infinite bulk) flow over TCP from node src to node dst, starting `start` seconds
# after the warm-up.
proc add_flow {src dst start} {
    global opt ns_ node_
    set i [llength $::flows]
    switch -- $opt(tcp) {
        Tahoe   { set tcp [new Agent/TCP] }
        default { set tcp [new Agent/TCP/$opt(tcp)] }
    }
    set win [expr {int($opt(rwnd) / $opt(mss))}]
    if {$opt(maxcwnd) > 0} {
        if {$opt(clamp) eq "window"} {
            set win $opt(maxcwnd)
        } else {
            $tcp set maxcwnd_ $opt(maxcwnd)
        }
    }
    $tcp set window_ $win
    $tcp set fid_ $i
    if {$opt(tcp) eq "Sack1"} {
        set sink [new [expr {$opt(delack) ? "Agent/TCPSink/Sack1/DelAck" : "Agent/TCPSink/Sack1"}]]
    } else {
        set sink [new [expr {$opt(delack) ? "Agent/TCPSink/DelAck" : "Agent/TCPSink"}]]
    }
    $ns_ attach-agent $node_($src) $tcp
    $ns_ attach-agent $node_($dst) $sink
    $ns_ connect $tcp $sink
    set ftp [new Application/FTP]
    $ftp attach-agent $tcp
    $ns_ at [expr {$opt(warmup) + $start}] "$ftp start"
    lappend ::flows [list $src $dst $start $tcp $sink $win]
    return $tcp
}

# ------------------------------------------------------------------------------------------
proc num {v {prec 3}} { return [format "%.${prec}f" $v] }

# Prints the JSON line and exits. `extra` is a list of already formatted "key":value pairs.
proc report_and_exit {scenario extra nn} {
    global opt ns_
    set t_end_ms [clock clicks -milliseconds]
    # ns-2's scheduler numbers every event it schedules (Scheduler::uid_); `at` returns the
    # number given to the new event, so this is the count of events scheduled so far.
    set uid [$ns_ at [expr {[$ns_ now] + 1.0}] ""]
    set events [expr {$uid - 1}]

    set meas [expr {$opt(duration)}]
    set total_bits 0.0
    set sumgp 0.0
    set data 0; set retx 0; set rto 0; set cuts 0
    set fl {}
    foreach f $::flows {
        lassign $f src dst start tcp sink win
        # seqno 0 is the 40-byte SYN of ns-2's one-way TCP (syn_ true); data segments are
        # 1..ack_, each of packetSize_ payload bytes
        set ack [$tcp set ack_]
        if {$ack < 0} { set ack 0 }
        set bytes [expr {wide($ack) * $opt(mss)}]
        set gp [expr {$bytes * 8.0 / ($meas - $start) / 1000.0}]
        set total_bits [expr {$total_bits + $bytes * 8.0}]
        set sumgp [expr {$sumgp + $gp}]
        set nd [$tcp set ndatapack_]
        set nr [$tcp set nrexmitpack_]
        set nt [$tcp set nrexmit_]
        set nc [$tcp set ncwndcuts_]
        incr data $nd; incr retx $nr; incr rto $nt; incr cuts $nc
        lappend fl [format "{\"src\":%d,\"dst\":%d,\"start\":%s,\"acked_bytes\":%s,\"goodput_kbps\":%s,\"data_segs\":%d,\"retx_segs\":%d,\"rto\":%d,\"cwnd_cuts\":%d,\"window\":%d,\"final_cwnd\":%s}" \
            $src $dst [num $start 4] $bytes [num $gp] $nd $nr $nt $nc $win [num [$tcp set cwnd_] 2]]
    }
    set gp [expr {$total_bits / ($meas - $opt(start)) / 1000.0}]
    set retxpct [expr {$data > 0 ? 100.0 * $retx / $data : 0.0}]
    set run_s [expr {($t_end_ms - $::t_run_ms) / 1000.0}]
    set wall_s [expr {($t_end_ms - $::t_script_ms) / 1000.0}]
    set js "{\"sim\":\"ns-2.35\",\"scenario\":\"$scenario\""
    if {[llength $extra] > 0} { append js "," [join $extra ","] }
    append js ",\"routing\":\"$opt(routing)\",\"max_cwnd\":$opt(maxcwnd),\"clamp\":\"$opt(clamp)\""
    append js ",\"tcp\":\"$opt(tcp)\",\"seed\":$opt(seed),\"nodes\":$nn"
    append js ",\"duration\":[num $opt(duration) 1],\"start\":[num $opt(start) 2],\"warmup\":[num $opt(warmup) 1]"
    append js ",\"rts_threshold\":$opt(rts),\"ifq\":$opt(ifq),\"mss\":$opt(mss),\"init_cwnd\":$opt(initWin)"
    append js ",\"min_rto\":[num $opt(minrto) 3],\"delack\":[expr {$opt(delack) ? "\[2,[num $opt(delackInterval) 3]\]" : "\[1,0\]"}]"
    append js ",\"goodput_kbps\":[num $gp],\"sum_flow_goodput_kbps\":[num $sumgp]"
    append js ",\"data_segs\":$data,\"retx_segs\":$retx,\"retx_pct\":[num $retxpct],\"rto\":$rto,\"cwnd_cuts\":$cuts"
    append js ",\"flows\":\[[join $fl ,]\]"
    append js ",\"events\":$events,\"setup_seconds\":[num [expr {($::t_run_ms - $::t_script_ms) / 1000.0}]]"
    append js ",\"run_seconds\":[num $run_s],\"wall_seconds\":[num $wall_s]}"
    puts $js
    flush stdout
    if {[info exists ::tracefd_]} { flush $::tracefd_; close $::tracefd_ }
    exit 0
}

# Schedules the report at warmup + duration and runs the simulation.
proc run_and_report {scenario extra nn} {
    global opt ns_
    set tend [expr {$opt(warmup) + $opt(duration)}]
    $ns_ at $tend [list report_and_exit $scenario $extra $nn]
    set ::t_run_ms [clock clicks -milliseconds]
    $ns_ run
}

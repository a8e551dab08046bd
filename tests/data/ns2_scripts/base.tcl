# A minimal ns-2 wireless script (the CMU template); bad scripts source it.
set ns_ [new Simulator]
set topo [new Topography]
$topo load_flatgrid 500 500
create-god 3
$ns_ node-config -adhocRouting AODV -llType LL -macType Mac/802_11 -ifqType Queue/DropTail/PriQueue \
    -ifqLen 50 -antType Antenna/OmniAntenna -propType Propagation/TwoRayGround -phyType Phy/WirelessPhy \
    -channelType Channel/WirelessChannel -topoInstance $topo -agentTrace ON -routerTrace ON -macTrace OFF
for {set i 0} {$i < 3} {incr i} {
    set node_($i) [$ns_ node]
    $node_($i) random-motion 0
    $node_($i) set X_ [expr {$i * 200.0}]
    $node_($i) set Y_ 0.0
}
set udp [new Agent/UDP]
$ns_ attach-agent $node_(0) $udp
set null [new Agent/Null]
$ns_ attach-agent $node_(2) $null
$ns_ connect $udp $null
set cbr [new Application/Traffic/CBR]
$cbr set packetSize_ 512
$cbr set interval_ 0.1
$cbr attach-agent $udp
$ns_ at 1.0 "$cbr start"

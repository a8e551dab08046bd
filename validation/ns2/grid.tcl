# From the project's ns-2.35 reference peer, unchanged; used by validation/compare_ns2.py.
# grid.tcl - rows x cols grid (200 m), two FTP/TCP bulk flows; static routing by default
# (any of static | AODV | DSR | DSDV). Node id = row * cols + col at (col*spacing, row*spacing).
#
#   -pattern cross  (default) flow 1: middle row left->right   (7x7: node 21 -> 27)
#                             flow 2: middle column top->bottom (7x7: node 3 -> 45)
#   -pattern row              both flows along the middle row left->right (21 -> 27):
#                             seed 001's Table 1 read as hoplab's `reproduce seed001` reads it
#   -pattern parallel         rows 2 and 4 left->right (14 -> 20, 28 -> 34)
# Flow 2 starts `stagger` s after flow 1 (default 0.5 s, as the ns-3 peer).
#
#   ns grid.tcl -routing DSR -seed 1 -duration 120
source [file join [file dirname [info script]] common.tcl]

defopt rows    7       "grid rows"
defopt cols    7       "grid columns"
defopt spacing 200.0   "grid spacing (m)"
defopt pattern cross   "cross | row | parallel"
defopt stagger 0.5     "start offset of flow 2 (s)"
set opt(routing) static
parse_options $argv
configure_defaults

set R $opt(rows); set C $opt(cols)
set n [expr {$R * $C}]
set pos {}
for {set r 0} {$r < $R} {incr r} {
    for {set c 0} {$c < $C} {incr c} { lappend pos [list [expr {$c * $opt(spacing)}] [expr {$r * $opt(spacing)}]] }
}
proc id {r c} { return [expr {$r * $::opt(cols) + $c}] }
set mr [expr {$R / 2}]; set mc [expr {$C / 2}]
switch -- $opt(pattern) {
    cross    { set fl [list [id $mr 0] [id $mr [expr {$C-1}]] [id 0 $mc] [id [expr {$R-1}] $mc]] }
    row      { set fl [list [id $mr 0] [id $mr [expr {$C-1}]] [id $mr 0] [id $mr [expr {$C-1}]]] }
    parallel { set fl [list [id [expr {$mr-1}] 0] [id [expr {$mr-1}] [expr {$C-1}]] [id [expr {$mr+1}] 0] [id [expr {$mr+1}] [expr {$C-1}]]] }
    default  { usage_exit "unknown -pattern $opt(pattern)" }
}
setup_network $n [expr {($C - 1) * $opt(spacing) + 1.0}] [expr {($R - 1) * $opt(spacing) + 1.0}] $pos "" \
    [list [lrange $fl 0 1] [lrange $fl 2 3]]
add_flow [lindex $fl 0] [lindex $fl 1] $opt(start)
add_flow [lindex $fl 2] [lindex $fl 3] [expr {$opt(start) + $opt(stagger)}]
run_and_report grid [list "\"rows\":$R" "\"cols\":$C" "\"spacing\":[num $opt(spacing) 1]" "\"pattern\":\"$opt(pattern)\"" "\"static_path_nodes\":[llength $static_active]"] $n

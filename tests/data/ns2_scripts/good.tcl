source base.tcl
$ns_ at 5.0 "$ns_ halt"
$ns_ run

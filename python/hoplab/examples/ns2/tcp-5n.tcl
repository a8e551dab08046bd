#
# nodes: 5, max conn: 1, send rate: 0.0, seed: 1
#
#
# 2 connecting to 3 at time 1.2930447608046234
#
set tcp_(0) [$ns_ create-connection  TCP $node_(2) TCPSink $node_(3) 0]
$tcp_(0) set window_ 32
$tcp_(0) set packetSize_ 512
set ftp_(0) [$tcp_(0) attach-source FTP]
$ns_ at 1.2930447608046234 "$ftp_(0) start"
#
#Total sources/connections: 1/1
#

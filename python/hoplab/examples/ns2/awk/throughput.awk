# TCP throughput from an ns-2 wireless trace (old format), the way ns-2
# users compute it from the TCP packets agents received. Works unchanged on
# ns-2's and hoplab's trace.tr.
#
#   awk -v dst=4 -v start=0 -v stop=120 -f throughput.awk trace.tr
#
# dst: the receiving node (empty: every node); start/stop: seconds.
# "bytes" sums every TCP packet received, duplicates included (the classic
# figure); "unique" counts each segment once (by flow and TCP seqno), as a
# goodput. Sizes count 40 bytes of TCP/IP header per packet (as ns-2's TCP
# agent does), so application bytes are bytes - 40 * packets.
#
# Old-format columns: $1 event, $2 time, $3 _node_, $4 level, $7 type,
# $8 size, $14 [src:port, $18 [seqno.
$1 == "r" && $4 == "AGT" && $7 == "tcp" && (dst == "" || $3 == "_" dst "_") && $2 >= start && $2 <= stop {
    bytes += $8
    packets++
    if (!(($14 " " $18) in seen)) {
        seen[$14 " " $18] = 1
        ubytes += $8
        unique++
    }
}
END {
    printf "packets %d bytes %d throughput_kbps %.3f unique %d unique_bytes %d goodput_kbps %.3f\n",
        packets, bytes, bytes * 8 / (stop - start) / 1000, unique, ubytes, ubytes * 8 / (stop - start) / 1000
}

# Drops by node, level, reason and packet type from a new-format trace
# ("d -t time -Hs node ... -Nl level -Nw reason ..."). Control frames and
# ARP have no -It: their type is the MAC frame's, as in the old format.
#
#   awk -f drops_new.awk trace.tr | sort
$1 == "d" {
    delete f
    for (i = 2; i < NF; i += 2) f[$i] = $(i + 1)
    type = ("-It" in f) ? f["-It"] : (f["-P"] == "arp" ? "ARP" : "MAC")
    n[f["-Ni"] " " f["-Nl"] " " f["-Nw"] " " type]++
}
END {
    for (k in n) print k, n[k]
}

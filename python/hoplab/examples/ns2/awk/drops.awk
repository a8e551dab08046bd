# Drops by node, trace level, reason and packet type from an ns-2 wireless
# trace (old format: "D time _node_ level reason uid type size ...").
#
#   awk -f drops.awk trace.tr | sort
$1 == "D" {
    node = $3
    gsub(/_/, "", node)
    n[node " " $4 " " $5 " " $7]++
}
END {
    for (k in n) print k, n[k]
}

# The same TCP throughput from a new-format ns-2 trace (`$ns use-newtrace`,
# hoplab's ns2_format = "new"): fields are read by their tags.
#
#   awk -v dst=4 -v start=0 -v stop=120 -f throughput_new.awk trace.tr
{
    delete f
    for (i = 2; i < NF; i += 2) f[$i] = $(i + 1)
}
$1 == "r" && f["-Nl"] == "AGT" && f["-It"] == "tcp" && (dst == "" || f["-Ni"] == dst) && f["-t"] >= start && f["-t"] <= stop {
    bytes += f["-Il"]
    packets++
    if (!((f["-Is"] " " f["-Ps"]) in seen)) {
        seen[f["-Is"] " " f["-Ps"]] = 1
        ubytes += f["-Il"]
        unique++
    }
}
END {
    printf "packets %d bytes %d throughput_kbps %.3f unique %d unique_bytes %d goodput_kbps %.3f\n",
        packets, bytes, bytes * 8 / (stop - start) / 1000, unique, ubytes, ubytes * 8 / (stop - start) / 1000
}

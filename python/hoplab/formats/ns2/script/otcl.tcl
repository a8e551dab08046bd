# A small OTcl for scripts' own classes (ns-2's test suites: `Class
# TestSuite`, `Class Test/aodv -superclass TestSuite`, `instproc`, `$self
# next`, `$self instvar`), loaded into hoplab's script interpreter. ns-2's
# own classes are hoplab's stand-ins; a script's class may extend only
# another script class (ns.py refuses one that extends or redefines ns-2's).
namespace eval ::__oo {
    variable super
    variable n 0
    variable stack {}
}

proc ::__oo::class {name super} {
    set ::__oo::super($name) $super
    proc ::$name {sub args} "::__oo::classcmd [list $name] \$sub {*}\$args"
    return $name
}

proc ::__oo::isclass {name} { return [info exists ::__oo::super($name)] }

proc ::__oo::classcmd {cls sub args} {
    switch -- $sub {
        instproc {
            lassign $args m params body
            proc ::__oom<$cls>$m [linsert $params 0 self] $body
            return
        }
        create { return [::__oo::new $cls {*}$args] }
        set {
            if {[llength $args] == 2} { return [set ::__oo::cvar($cls,[lindex $args 0]) [lindex $args 1]] }
            return [set ::__oo::cvar($cls,[lindex $args 0])]
        }
        default { error "$cls $sub: not an OTcl class command hoplab's interpreter runs" }
    }
}

proc ::__oo::find {cls m} {
    while {$cls ne ""} {
        if {[llength [info procs ::__oom<$cls>$m]]} { return $cls }
        set cls $::__oo::super($cls)
    }
    return ""
}

proc ::__oo::new {cls args} {
    set o _u[incr ::__oo::n]
    set ::__oo::class_of($o) $cls
    proc ::$o {m args} "::__oo::dispatch $o \$m {*}\$args"
    if {[::__oo::find $cls init] ne ""} { ::__oo::call $o $cls init {*}$args }
    return $o
}

proc ::__oo::call {o cls m args} {
    lappend ::__oo::stack [list $cls $m]
    set code [catch {uplevel 1 [list ::__oom<$cls>$m $o {*}$args]} r opts]
    set ::__oo::stack [lrange $::__oo::stack 0 end-1]
    return -options $opts $r
}

proc ::__oo::dispatch {o m args} {
    switch -- $m {
        instvar {
            foreach v $args { uplevel 2 [list upvar #0 ::__oo::var($o,$v) $v] }
            return
        }
        next {
            lassign [lindex $::__oo::stack end] cls meth
            set up [::__oo::find $::__oo::super($cls) $meth]
            if {$up eq ""} { return }
            return [uplevel 1 [list ::__oo::call $o $up $meth {*}$args]]
        }
        set {
            if {[llength $args] == 2} { return [set ::__oo::var($o,[lindex $args 0]) [lindex $args 1]] }
            return [set ::__oo::var($o,[lindex $args 0])]
        }
        class { return $::__oo::class_of($o) }
        info { return "" }
    }
    set cls [::__oo::find $::__oo::class_of($o) $m]
    if {$cls eq ""} { error "$o $m: no method $m in class $::__oo::class_of($o)" }
    return [uplevel 1 [list ::__oo::call $o $cls $m {*}$args]]
}

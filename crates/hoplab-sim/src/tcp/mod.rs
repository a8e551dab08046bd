//! TCP: a one-way bulk sender and a sink, as in ns-2's `Agent/TCP` family.

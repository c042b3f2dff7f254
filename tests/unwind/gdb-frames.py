# gdb-frames.py - under `gdb -batch -x`, run compare-libunwind and, at
# every call of marker(name), print the pcs gdb unwinds from probe's
# caller outwards, as "GDB name: pc pc ...", for run-unwind-tests.sh to
# compare with the program's own "EHELF name: ..." lines.  gdb's frames for
# inlined functions and the tail calls it infers from debug information
# are not machine frames: they are skipped.  gdb stops at
# main by default; ehelf goes on to _start.
import gdb

gdb.execute("set pagination off")
gdb.execute("set print thread-events off")
gdb.execute("set backtrace past-main on")
gdb.execute("set backtrace past-entry on")
gdb.execute("handle SIGUSR1 nostop noprint pass")  # scen_signal raises it
gdb.execute("handle SIGUSR2 nostop noprint pass")  # and scen_cfa_rbx this one
gdb.execute("break marker")
gdb.execute("run")
while True:
    try:
        frame = gdb.selected_frame()
    except gdb.error:
        break
    if frame.name() != "marker":
        break
    name = frame.read_var("name").string()
    f = frame.older().older()  # marker, then probe
    pcs = []
    while f is not None:
        if f.type() not in (gdb.INLINE_FRAME, gdb.TAILCALL_FRAME):
            pcs.append("%#x" % f.pc())
        f = f.older()
    print("GDB %s: %s" % (name, " ".join(pcs)))
    try:
        gdb.execute("continue")
    except gdb.error:
        break

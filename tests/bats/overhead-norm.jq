# Kernel-chosen addresses: even without ASLR the carveout's place depends on
# what the parent process mapped before the fork (its heap, a thread's stack,
# ASan's allocator), and a carveout that is 2 MiB-aligned moves by 2 MiB when
# that differs by a page. So every address is written relative to its
# scenario's carveout start, "B+N" or "B-N" bytes (or carveout+Np), and
# one the kernel placed outside the reservation is "placed": the test
# compares those with anonremap diff, which anchors each placed region.
def hexval: ascii_downcase | ltrimstr("0x") | explode
  | reduce .[] as $c (0; . * 16 + (if $c >= 97 then $c - 87 else $c - 48 end));
# $r: the reservation, {base, lo, hi, ps} in bytes (lo..hi takes the guards in)
def outside($r): . < $r.lo or . >= $r.hi;
def rel($r): if outside($r) then "placed" elif . >= $r.base then "B+\(. - $r.base)" else "B-\($r.base - .)" end;
def prel($r): # N of "carveout+Np"
  if (. * $r.ps + $r.base) | outside($r) then "placed" elif . >= 0 then "carveout+\(.)p" else "carveout\(.)p" end;
def addrs_rel($r):
  gsub("0x(?<h>[0-9a-f]{9,})"; .h | hexval | rel($r))
  | gsub("carveout(?<n>[+-][0-9]+)p"; .n | tonumber | prel($r))
  | if test("^[0-9a-f]+-[0-9a-f]+ [-rwxps]{4} ")
    then sub("^(?<s>[0-9a-f]+)-(?<e>[0-9a-f]+)"; "\(.s | hexval | rel($r))-\(.e | hexval | rel($r))")
    else . end;
def carveout_relative:
  if type == "object" and (.scenarios | type) == "array" then
    .scenarios |= map(if (.carveout.start | type) == "string"
      then (.carveout.start | hexval) as $base | (.carveout.end | hexval) as $top
        | (($top - $base) / .carveout.pages) as $ps
        | { base: $base, ps: $ps, lo: ($base - .carveout.guard_pages * $ps),
            hi: ($top + .carveout.guard_pages * $ps) } as $r
        | walk(if type == "string" then addrs_rel($r) else . end)
      else . end)
  else . end;

# A run's result, less what differs from one run to the next whatever the
# build: times, pids (a fork's return is one), system-wide counters, the
# inode numbers of the scenarios' files, the command line and date, and the
# scenario process's totals ("process": a fork of anonremap, its RSS and
# size are anonremap's heap and binary as much as the scenario's; a dump's
# process_vma_count likewise counts the heap's mappings, which under ASan
# depend on what the parent allocated before the fork, so on the format).
# (A maps_line pads its inode to a column, so the padding goes with it.)
# Addresses are relative to the carveout, and masked outside the reservation
# (carveout_relative above): even without ASLR (setarch -R) their place
# depends on what the parent mapped before the fork.
walk(if type == "object" then
    (if .op == "fork" then del(.ret) else . end)
    | with_entries(select(.key | test("^(duration_ns|getpid_ns|elapsed.*|pid|pids|inode|date|command_line|kernel_counters|process|process_vma_count)$") | not))
    | with_entries(if (.value | type) == "string" then .value |= (gsub("/tmp/#[0-9]+"; "/tmp/#N")
        | gsub("\\(inode [0-9]+\\)"; "(inode N)")
        | if test("^[0-9a-f]+-[0-9a-f]+ [-rwxps]{4} ") then sub("^(?<a>\\S+ \\S+ \\S+ \\S+ )[0-9]+ *"; "\(.a)N ") else . end)
      else . end)
  else . end)
| carveout_relative

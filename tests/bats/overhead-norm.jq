# A run's result, less what differs from one run to the next whatever the
# build: times, pids (a fork's return is one), system-wide counters, the
# inode numbers of the scenarios' files, the command line and date, and the
# scenario process's totals ("process": a fork of anonremap, its RSS and
# size are anonremap's heap and binary as much as the scenario's; a dump's
# process_vma_count likewise counts the heap's mappings, which under ASan
# depend on what the parent allocated before the fork, so on the format).
# (A maps_line pads its inode to a column, so the padding goes with it.)
# Addresses are the same when the runs are made without ASLR (setarch -R).
walk(if type == "object" then
    (if .op == "fork" then del(.ret) else . end)
    | with_entries(select(.key | test("^(duration_ns|getpid_ns|elapsed.*|pid|pids|inode|date|command_line|kernel_counters|process|process_vma_count)$") | not))
    | with_entries(if (.value | type) == "string" then .value |= (gsub("/tmp/#[0-9]+"; "/tmp/#N")
        | gsub("\\(inode [0-9]+\\)"; "(inode N)")
        | if test("^[0-9a-f]+-[0-9a-f]+ [-rwxps]{4} ") then sub("^(?<a>\\S+ \\S+ \\S+ \\S+ )[0-9]+ *"; "\(.a)N ") else . end)
      else . end)
  else . end)

# Optimization levels chosen for build cost (docs/testing.md, "The slower host"). CI builds
# everything twice on 2 cores within its time limit, so code whose speed nobody waits on is
# compiled at -O1 in the release build: the CLI's commands, the workbench's windowing and
# jobs, and the report writer only orchestrate the compiler's libraries and print. The
# compiler, the runtime, the importers, the graph and the views keep -O3 (a cli_*.cc file:
# 17.9 s at -O3, 12.5 s at -O1).
function(fusebox_orchestration_code target)
  target_compile_options(${target} PRIVATE $<$<CONFIG:Release>:-O1>)
endfunction()

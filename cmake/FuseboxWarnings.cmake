# Warning flags for Fusebox's own targets (third-party headers are SYSTEM).
function(fusebox_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow=local
                                           -Wno-unused-parameter -Wimplicit-fallthrough)
  if(FUSEBOX_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

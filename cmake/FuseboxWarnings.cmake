# Warning flags for Fusebox's own targets (third-party headers are SYSTEM).
function(fusebox_set_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-unused-parameter
                                           -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    # Clang's spelling of GCC's -Wshadow=local.
    target_compile_options(${target} PRIVATE -Wshadow-uncaptured-local)
    # libstdc++ 12's std::stable_sort calls std::get_temporary_buffer, deprecated in C++17,
    # and clang 19 reports the instantiation from our code (libstdc++'s pragma silences
    # only GCC): nothing of ours is deprecated there.
    target_compile_options(${target} PRIVATE -Wno-deprecated-declarations)
  else()
    target_compile_options(${target} PRIVATE -Wshadow=local)
  endif()
  if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU")
    # GCC 12 reports -Wrestrict false positives inside std::string's operator+ at -O2
    # (GCC bug 105651); nothing in our code is involved.
    target_compile_options(${target} PRIVATE -Wno-restrict)
    if(FUSEBOX_SANITIZE)
      # With -fsanitize, GCC 12's -Wmaybe-uninitialized misfires inside libstdc++
      # (std::regex's std::function members); the sanitizers themselves check this at run time.
      target_compile_options(${target} PRIVATE -Wno-maybe-uninitialized)
    endif()
  endif()
  if(FUSEBOX_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
  endif()
endfunction()

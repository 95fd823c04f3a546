// Builds tests/pch/test_pch.h once; every test target reuses it (tests/CMakeLists.txt).

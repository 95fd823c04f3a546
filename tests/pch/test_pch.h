// The tests' precompiled header (tests/CMakeLists.txt, fusebox_test_pch): GoogleTest and
// the standard and Fusebox headers that most test files include. Only headers every test
// may see: the parser and the IR sit at the bottom of the stage order, so a stage test
// linking fusebox_hlo alone still links.
#pragma once

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/parser/parser.h"

// The headless command-line face of Fusebox: `fusebox <command> ...`.
// Exit codes: 0 success, 1 user error (bad input, bad flags, invalid module),
// 2 internal error (a Fusebox bug).
#pragma once

namespace fusebox::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitUserError = 1;
inline constexpr int kExitInternal = 2;

int RunCli(int argc, char** argv);

}  // namespace fusebox::cli

#include "compiler/support/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>

extern char** environ;

namespace fusebox {
namespace {

// This process's environment with `overrides` ("NAME=value") replacing or extending it.
std::vector<std::string> MergedEnvironment(const std::vector<std::string>& overrides) {
  std::vector<std::string> merged;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    std::string_view entry(*e);
    std::string_view name = entry.substr(0, entry.find('='));
    const bool overridden = std::any_of(overrides.begin(), overrides.end(), [&](const std::string& o) {
      return o.size() > name.size() && o.compare(0, name.size(), name) == 0 && o[name.size()] == '=';
    });
    if (!overridden) merged.emplace_back(entry);
  }
  merged.insert(merged.end(), overrides.begin(), overrides.end());
  return merged;
}

// Pipe ends this side owns, closed once.
struct Fd {
  int fd = -1;
  ~Fd() { Close(); }
  void Close() {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
};

// A write into the child's standard input when the child has already exited raises
// SIGPIPE, which would end this whole process. The signal is blocked on this thread
// while writing, and one it raised is taken off the pending set again.
ssize_t WriteWithoutSigpipe(int fd, const char* data, size_t size) {
  sigset_t pipe_only, old;
  sigemptyset(&pipe_only);
  sigaddset(&pipe_only, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
  sigset_t pending;
  sigpending(&pending);
  const bool was_pending = sigismember(&pending, SIGPIPE) == 1;
  ssize_t written = ::write(fd, data, size);
  const int saved_errno = errno;
  if (written < 0 && saved_errno == EPIPE && !was_pending) {
    timespec zero{0, 0};
    while (sigtimedwait(&pipe_only, nullptr, &zero) < 0 && errno == EINTR) {
    }
  }
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
  errno = saved_errno;
  return written;
}

// Reads what is there into `into`; false at end of stream or on an error.
bool ReadSome(int fd, std::string& into) {
  char buffer[65536];
  ssize_t n = ::read(fd, buffer, sizeof buffer);
  if (n > 0) {
    into.append(buffer, static_cast<size_t>(n));
    return true;
  }
  return n < 0 && (errno == EINTR || errno == EAGAIN);
}

// Feeds the child's input and collects its output until both output streams end, the
// deadline passes or the cancel flag is set (then the child is killed).
void Converse(pid_t pid, const ProcessOptions& options, Fd& in, Fd& out, Fd& err, ProcessResult& result) {
  using Clock = std::chrono::steady_clock;
  const bool limited = options.timeout_seconds > 0;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(limited ? options.timeout_seconds : 0));
  size_t written = 0;
  while (out.fd >= 0 || err.fd >= 0) {
    if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) {
      ::kill(pid, SIGKILL);
      result.cancelled = true;
      return;
    }
    int wait_ms = options.cancel != nullptr ? 20 : 1000;
    if (limited) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
      if (left <= 0) {
        ::kill(pid, SIGKILL);
        result.timed_out = true;
        return;
      }
      wait_ms = static_cast<int>(std::min<int64_t>(wait_ms, left));
    }
    pollfd fds[3];
    int count = 0;
    for (Fd* f : {&out, &err}) {
      if (f->fd >= 0) fds[count++] = {f->fd, POLLIN, 0};
    }
    if (in.fd >= 0) fds[count++] = {in.fd, POLLOUT, 0};
    const int ready = ::poll(fds, static_cast<nfds_t>(count), wait_ms);
    if (ready < 0 && errno != EINTR) {
      ::kill(pid, SIGKILL);  // we can no longer talk to it; do not wait for it forever
      return;
    }
    if (ready <= 0) continue;
    for (int i = 0; i < count; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in.fd) {
        const size_t chunk = std::min<size_t>(options.input.size() - written, 65536);
        const ssize_t n = WriteWithoutSigpipe(in.fd, options.input.data() + written, chunk);
        if (n > 0) written += static_cast<size_t>(n);
        // All written, or the child stopped reading: it sees the end of its input.
        if (written == options.input.size() || (n < 0 && errno != EINTR && errno != EAGAIN)) in.Close();
      } else {
        Fd& f = fds[i].fd == out.fd ? out : err;
        if (!ReadSome(f.fd, f.fd == out.fd ? result.output : (options.merge_stderr ? result.output : result.errors))) {
          f.Close();
        }
      }
    }
  }
}

bool IsExecutableFile(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

}  // namespace

StatusOr<ProcessResult> RunProcess(const ProcessOptions& options) {
  if (options.argv.empty()) return InvalidArgument("RunProcess needs a program to run");
  const std::string& program = options.argv[0];
  std::vector<char*> args;
  for (const std::string& arg : options.argv) args.push_back(const_cast<char*>(arg.c_str()));
  args.push_back(nullptr);
  std::vector<std::string> env_storage = MergedEnvironment(options.env_overrides);
  std::vector<char*> env;
  for (std::string& entry : env_storage) env.push_back(entry.data());
  env.push_back(nullptr);

  // Every pipe is close-on-exec: another child started meanwhile (by another thread)
  // must not hold our ends open, or we would never see the end of the output.
  int out_pipe[2], err_pipe[2] = {-1, -1}, in_pipe[2] = {-1, -1};
  if (::pipe2(out_pipe, O_CLOEXEC) != 0) return Unavailable("cannot run " + program + ": pipe: " + std::strerror(errno));
  Fd out{out_pipe[0]}, out_child{out_pipe[1]}, err, err_child, in, in_child;
  if (!options.merge_stderr) {
    if (::pipe2(err_pipe, O_CLOEXEC) != 0) return Unavailable("cannot run " + program + ": pipe: " + std::strerror(errno));
    err.fd = err_pipe[0];
    err_child.fd = err_pipe[1];
  }
  if (!options.input.empty()) {
    if (::pipe2(in_pipe, O_CLOEXEC) != 0) return Unavailable("cannot run " + program + ": pipe: " + std::strerror(errno));
    in_child.fd = in_pipe[0];
    in.fd = in_pipe[1];
    ::fcntl(in.fd, F_SETFL, ::fcntl(in.fd, F_GETFL) | O_NONBLOCK);
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  if (in_child.fd >= 0) {
    posix_spawn_file_actions_adddup2(&actions, in_child.fd, 0);
  } else {
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  }
  posix_spawn_file_actions_adddup2(&actions, out_child.fd, 1);
  posix_spawn_file_actions_adddup2(&actions, err_child.fd >= 0 ? err_child.fd : out_child.fd, 2);
  pid_t pid = 0;
  const int spawn_error = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, args.data(), env.data());
  posix_spawn_file_actions_destroy(&actions);
  out_child.Close();
  err_child.Close();
  in_child.Close();
  if (spawn_error != 0) return Unavailable("cannot run " + program + ": " + std::strerror(spawn_error));

  ProcessResult result;
  Converse(pid, options, in, out, err, result);
  in.Close();
  out.Close();
  err.Close();
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  return result;
}

std::string FindProgram(std::string_view name) {
  if (name.empty()) return "";
  if (name.find('/') != std::string_view::npos) {
    const std::string path(name);
    return IsExecutableFile(path) ? path : "";
  }
  const char* path_env = std::getenv("PATH");
  std::string_view dirs = path_env != nullptr ? path_env : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const size_t colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    if (dir.empty()) dir = ".";
    const std::string candidate = dir + "/" + std::string(name);
    if (IsExecutableFile(candidate)) return candidate;
    if (colon == std::string_view::npos) return "";
    dirs.remove_prefix(colon + 1);
  }
}

}  // namespace fusebox

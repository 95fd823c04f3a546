// Background work for the workbench: one worker thread runs jobs in the order they are
// queued (so jobs that touch one compile session never race), reports progress, and
// hands each result back to the UI thread, which applies it in Poll() between frames.
// Cancelling a job discards its result; a job that has not started yet never runs, and
// a running one sees cancelled() between its steps.
#pragma once

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace fusebox::gui {

class TaskContext {
 public:
  bool cancelled() const { return cancelled_.load(); }
  // The flag itself, for work that checks it deep inside (the interpreter's loop, the pass
  // pipeline, the CPU compile and runs take a `const std::atomic<bool>*`).
  const std::atomic<bool>* cancel_flag() const { return &cancelled_; }
  // Progress in [0, 1] (or negative: unknown) and what the job is doing now.
  void SetProgress(float fraction, std::string step);

 private:
  friend class TaskRunner;
  std::atomic<bool> cancelled_{false};
  mutable std::mutex mu_;
  float fraction_ = -1;
  std::string step_;
};

struct TaskStatus {
  std::string name;   // "Compiling jit_f (LLVM IR)"
  std::string step;   // the job's own words for where it is
  float fraction = -1;
  double elapsed_s = 0;
  int queued = 0;     // jobs waiting behind it
};

class TaskRunner {
 public:
  TaskRunner();
  ~TaskRunner();  // cancels what is queued, waits for the running job
  TaskRunner(const TaskRunner&) = delete;
  TaskRunner& operator=(const TaskRunner&) = delete;

  // `work` runs on the worker thread; `done` then runs on the UI thread (in Poll) unless
  // the job was cancelled. Jobs with the same non-empty `group` replace each other while
  // queued (only the newest waits), so a user clicking through stages does not build a
  // backlog.
  void Submit(std::string name, std::function<void(TaskContext&)> work, std::function<void()> done,
              std::string group = "");

  // Runs the `done` callbacks of finished jobs; call once per frame on the UI thread.
  // Returns how many ran.
  int Poll();

  // Jobs that threw (a Fusebox bug): "<job>: internal error: <what>", once each.
  std::vector<std::string> TakeErrors();

  // Cancels the running job and everything queued.
  void CancelAll();
  bool idle() const;  // nothing queued, running, or waiting for Poll
  // The running job, if any.
  bool Running(TaskStatus* status) const;

 private:
  struct Job {
    std::string name;
    std::string group;
    std::function<void(TaskContext&)> work;
    std::function<void()> done;
    std::shared_ptr<TaskContext> context;
  };
  void WorkerLoop();

  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Job> queue_;
  std::vector<std::function<void()>> finished_;
  std::vector<std::string> errors_;
  bool running_ = false;
  std::string running_name_;
  std::shared_ptr<TaskContext> running_context_;
  double running_since_ = 0;
  bool stop_ = false;
  std::thread worker_;
};

}  // namespace fusebox::gui

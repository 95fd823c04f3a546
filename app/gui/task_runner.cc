#include "app/gui/task_runner.h"

#include <chrono>

namespace fusebox::gui {
namespace {

double NowSeconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

}  // namespace

void TaskContext::SetProgress(float fraction, std::string step) {
  std::lock_guard<std::mutex> lock(mu_);
  fraction_ = fraction;
  step_ = std::move(step);
}

TaskRunner::TaskRunner() : worker_([this] { WorkerLoop(); }) {}

TaskRunner::~TaskRunner() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
    for (Job& job : queue_) job.context->cancelled_ = true;
    queue_.clear();
    if (running_context_) running_context_->cancelled_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

void TaskRunner::Submit(std::string name, std::function<void(TaskContext&)> work,
                        std::function<void()> done, std::string group) {
  Job job{std::move(name), std::move(group), std::move(work), std::move(done),
          std::make_shared<TaskContext>()};
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!job.group.empty()) {
      for (auto it = queue_.begin(); it != queue_.end();) {
        it = it->group == job.group ? queue_.erase(it) : it + 1;
      }
    }
    queue_.push_back(std::move(job));
  }
  cv_.notify_one();
}

void TaskRunner::WorkerLoop() {
  for (;;) {
    Job job;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stop_ || !queue_.empty(); });
      if (stop_) return;
      job = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
      running_name_ = job.name;
      running_context_ = job.context;
      running_since_ = NowSeconds();
    }
    // Exceptions must not take the worker down: the UI would wait forever. The job's own
    // code reports errors through its result; anything escaping is a bug, shown as such.
    std::function<void()> done = std::move(job.done);
    std::string error;
    try {
      job.work(*job.context);
    } catch (const std::exception& e) {
      error = job.name + ": internal error: " + e.what();
    } catch (...) {
      error = job.name + ": internal error (unknown exception)";
    }
    if (!error.empty()) done = nullptr;
    std::lock_guard<std::mutex> lock(mu_);
    if (!error.empty()) errors_.push_back(std::move(error));
    if (done && !job.context->cancelled()) finished_.push_back(std::move(done));
    running_ = false;
    running_context_.reset();
  }
}

std::vector<std::string> TaskRunner::TakeErrors() {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<std::string> errors;
  errors.swap(errors_);
  return errors;
}

int TaskRunner::Poll() {
  std::vector<std::function<void()>> ready;
  {
    std::lock_guard<std::mutex> lock(mu_);
    ready.swap(finished_);
  }
  for (auto& done : ready) done();
  return static_cast<int>(ready.size());
}

void TaskRunner::CancelAll() {
  std::lock_guard<std::mutex> lock(mu_);
  for (Job& job : queue_) job.context->cancelled_ = true;
  queue_.clear();
  if (running_context_) running_context_->cancelled_ = true;
}

bool TaskRunner::idle() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.empty() && !running_ && finished_.empty();
}

bool TaskRunner::Running(TaskStatus* status) const {
  std::lock_guard<std::mutex> lock(mu_);
  if (!running_) return false;
  if (status) {
    status->name = running_name_;
    std::lock_guard<std::mutex> progress_lock(running_context_->mu_);
    status->step = running_context_->step_;
    status->fraction = running_context_->fraction_;
    status->elapsed_s = NowSeconds() - running_since_;
    status->queued = static_cast<int>(queue_.size());
  }
  return true;
}

}  // namespace fusebox::gui

// A multi-device run as `fusebox run --devices N`, the report and the workbench do it: a
// global program is partitioned first (shardy-import, sharding-propagation,
// spmd-partitioner); the per-device program runs on N logical devices (interpreter or CPU,
// fused or unfused, one thread per device) on global arguments; the result is assembled;
// the trace has a process per device with its kernels and collectives; and the check's
// reference is ready (the global program on one device where the interpreter can run it,
// else the per-device program on the same devices).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/check/numeric_check.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/ir/sharding.h"
#include "compiler/passes/pass.h"
#include "compiler/interpreter/collective_hub.h"
#include "profiler/multi_device_trace.h"
#include "profiler/trace.h"

namespace fusebox::session {

struct MultiDeviceRunOptions {
  int64_t devices = 0;                 // 0: what the module needs
  std::string backend = "interpreter";  // "interpreter" or "cpu" ("gpu" is refused)
  bool fused = true;
  int64_t iterations = 1;              // CPU: runs (the fastest is reported)
  // Where the outputs' sharding and the global shapes come from when the per-device
  // program does not say: a sharding in XLA's text, and/or the module before
  // partitioning (a file path).
  std::string output_sharding;
  std::string unpartitioned_path;
  // The file the module came from: a partitioned module from an XLA dump finds its
  // before_spmd-partitioning dump beside it.
  std::string source_path;
  // Global arguments; empty: random ones (seed), drawn per parameter from its uses.
  std::vector<Literal> arguments;
  uint64_t seed = 0;
  // Checked by the partitioner's pipeline, the CPU compile and every device's run.
  const std::atomic<bool>* cancel = nullptr;
};

struct MultiDeviceRun {
  int64_t devices = 0;
  std::string backend;                 // "interpreter" or "cpu": what ran each device's program
  std::string how;                     // "the interpreter", "the CPU backend (fused, ...)"
  std::vector<std::string> notes;      // partitioning, where shardings came from, ...
  std::vector<passes::CollectiveDecision> decisions;  // what the partitioner inserted, with reasons
  std::unique_ptr<Module> per_device;  // the program that ran (before backend passes)
  const Module* global_program = nullptr;  // the input, when it was partitioned here
  std::vector<Literal> arguments;      // global
  Literal result;                      // global
  double compile_s = 0;
  std::vector<double> times_s;         // per iteration, ascending
  profiler::Trace trace;                         // a process per device
  std::vector<profiler::DeviceRow> device_rows;
  std::vector<profiler::CollectiveRow> collective_rows;
  int64_t kernels_per_device = 0;      // in the last run, the largest over devices
};

// Partitions (if needed) and runs `module`. Errors name the device and the instruction.
StatusOr<MultiDeviceRun> RunOnDevicesProfiled(const Module& module, MultiDeviceRunOptions options);

// Checks `run.result` with --check semantics (against the interpreter) and/or against
// `expected` (one literal per output leaf), with the reference described above; `note`
// gets a line when the reference is the per-device program.
struct MultiDeviceCheck {
  std::optional<check::CheckReport> against_interpreter;
  std::optional<check::CheckReport> against_expected;
  std::string note;
};
StatusOr<MultiDeviceCheck> CheckMultiDeviceRun(const MultiDeviceRun& run, bool check,
                                               const std::vector<Literal>* expected);

// The module XLA dumped before partitioning beside `path` (a file or a dump folder):
// `*.<module_name>.*before_spmd-partitioning*` up to two folders down; "" when none.
std::string FindUnpartitionedDump(const std::string& path, const std::string& module_name);

}  // namespace fusebox::session

// Runs a per-device (SPMD-partitioned) program on N logical devices in this process:
// one thread per device, as XLA's host platform does, each running its copy of the
// program on the interpreter or the CPU backend, with collectives exchanged through a
// CollectiveHub. Inputs and outputs are GLOBAL arrays: arguments are split into each
// device's tile by the entry parameters' shardings, and the result is assembled from the
// devices' tiles by the root's sharding.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "compiler/interpreter/interpreter.h"
#include "compiler/ir/literal.h"
#include "compiler/ir/module.h"
#include "compiler/ir/sharding.h"
#include "compiler/interpreter/collective_hub.h"
#include "profiler/execution_observer.h"
#include "compiler/support/status.h"

namespace fusebox::runtime {

class CpuExecutable;

// The sharding of entry parameter `i` (replicated when it has none).
StatusOr<Sharding> ParameterSharding(const Module& module, int64_t i);
// The sharding of the entry root (replicated when it has none).
StatusOr<Sharding> RootSharding(const Module& module);

// Each device's arguments from the global ones: device d gets its tile of each
// (padded with zeros where the last tile is short, as XLA pads). An argument whose shape
// is the per-device shape rather than the global one is an error that says so.
StatusOr<std::vector<std::vector<Literal>>> SplitArguments(const Module& per_device,
                                                           const std::vector<Literal>& global,
                                                           int64_t devices);

// The global result from the devices' results. `global_shape` gives the true global
// shape where tiles were padded (empty: tiles × the per-device shape). Replicated parts
// are taken from the first device holding them; every other holder must agree bit for
// bit, or `disagreements` gets a line naming the output and the devices.
// `root_sharding` overrides the root's own (XLA's optimized modules lose the output
// shardings from the text: they live in the module's config).
StatusOr<Literal> AssembleResult(const Module& per_device, const std::vector<Literal>& per_device_results,
                                 const Shape* global_shape, std::vector<std::string>* disagreements,
                                 const Sharding* root_sharding = nullptr);

// The output sharding and global result shape recorded in a module before partitioning
// (its root's sharding; XLA's dumps after shardy-xla or before spmd-partitioning have
// it), for running the partitioned module. NotFound when its root has no sharding.
struct GlobalOutputs {
  Sharding sharding;
  Shape shape;
};
StatusOr<GlobalOutputs> GlobalOutputsOf(const Module& unpartitioned);

// The global shapes of the entry parameters of a per-device program: from the module
// before partitioning when given (`unpartitioned`, same parameters in the same order),
// else each parameter's tiles times its per-device shape.
StatusOr<std::vector<Shape>> GlobalParameterShapes(const Module& per_device, const Module* unpartitioned);

// A copy of `per_device` whose entry parameters have the global shapes: what argument
// loaders and random-input generators read to make global arguments. Not a program to
// run (its users still expect tiles).
StatusOr<std::unique_ptr<Module>> GlobalParameterView(const Module& per_device, const std::vector<Shape>& shapes);

enum class DeviceBackend { kInterpreter, kCpu };

struct MultiDeviceOptions {
  int64_t devices = 0;  // 0: DevicesOfModule
  DeviceBackend backend = DeviceBackend::kInterpreter;
  interpreter::InterpreterOptions interpreter;  // base options (limits, seed) for every device
  // CPU backend: an executable compiled from the per-device module (fused or not) with
  // CpuExecutableOptions::devices set and one thread; the runner prepares its slots.
  CpuExecutable* cpu = nullptr;
  // Kernel events per device (the trace's device tracks); may be null, or shorter.
  std::vector<profiler::ExecutionObserver*> observers;
  const Shape* global_result_shape = nullptr;
  const Sharding* root_sharding = nullptr;  // overrides the root's own
  // Set from another thread: every device stops (interpreter loop, between CPU kernels)
  // and the run returns Cancelled().
  const std::atomic<bool>* cancel = nullptr;
  int64_t iteration = 0;  // passed to the observers (which run of a repeated profile)
};

struct MultiDeviceResult {
  Literal global;                       // assembled by the root sharding
  std::vector<Literal> per_device;      // each device's own result
  std::vector<interpreter::CollectiveEvent> collectives;  // in the order they completed
  std::vector<int64_t> device_wall_ns;  // per device, its thread's run
  std::vector<std::string> disagreements;  // replicated outputs the devices disagree on
  int64_t devices = 0;
};

// Runs the per-device program `module` on `options.devices` devices with global
// arguments. The first device error stops the run and is returned, led by "device N: ".
StatusOr<MultiDeviceResult> RunOnDevices(const Module& module, const std::vector<Literal>& global_arguments,
                                         const MultiDeviceOptions& options);

// The interpreter on `devices` devices, global in, global out: for tests and checks.
StatusOr<Literal> RunGlobal(const Module& per_device_module, const std::vector<Literal>& global_args,
                            int64_t devices);

}  // namespace fusebox::runtime

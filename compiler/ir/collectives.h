// Which devices a collective instruction involves, read from every replica-group syntax
// XLA writes (explicit {{0,1},{2,3}}, iota [2,2]<=[4]T(1,0), mesh['x'=2,'y'=2] {'y'},
// empty {}) and from collective-permute's source_target_pairs; and the check every run
// makes with it: a collective whose groups reach past the devices of the run would give
// a plausible local value instead of the real result, so it is an error instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/ir/module.h"
#include "compiler/support/status.h"

namespace fusebox {

// How a collective's ids are read (XLA's CollectiveOpGroupMode): decided by channel_id
// and use_global_device_ids, as XLA decides it for each opcode.
enum class CollectiveGroupMode {
  kCrossReplica,              // no channel_id: replica ids, a group per partition
  kCrossPartition,            // channel_id on all-to-all, collective-permute, ...: partition ids
  kCrossReplicaAndPartition,  // channel_id on all-reduce/all-gather/reduce-scatter: replica
                              // ids, each group with all partitions of its replicas
  kFlattenedId,               // use_global_device_ids=true: global device ids
};
std::string_view CollectiveGroupModeName(CollectiveGroupMode mode);

// Whether `opcode` exchanges data between devices (all-reduce, all-gather, reduce-scatter,
// all-to-all, ragged-all-to-all, collective-broadcast, collective-reduce,
// collective-permute and their -start forms).
bool IsCrossDeviceCollective(Opcode opcode);

// The devices of one collective instruction, as global device ids
// (replica * partitions + partition, XLA's flattened ids).
struct CollectiveDevices {
  CollectiveGroupMode mode = CollectiveGroupMode::kCrossReplica;
  // "replica_groups={{0,1,2,3}}", "replica_groups=[1,4]<=[4]", "replica_groups={}",
  // "source_target_pairs={{0,1},{1,0}}": the attribute as written.
  std::string written;
  // Every group the instruction forms, in global device ids; for collective-permute one
  // {source, target} per pair.
  std::vector<std::vector<int64_t>> groups;
  bool pairs = false;  // groups are collective-permute's source-target pairs
  // Devices the module runs this instruction on: the largest id in any group plus one.
  int64_t devices = 1;
};

// Row-major device ids of an iota list <=[dims] transposed by T(perm) (empty: none).
StatusOr<std::vector<int64_t>> ExpandIotaDeviceList(const std::vector<int64_t>& dims,
                                                   const std::vector<int64_t>& perm);

// Expands iota replica groups [G,S]<=[dims]T(perm) into G groups of S ids.
StatusOr<std::vector<std::vector<int64_t>>> ExpandIotaReplicaGroups(const ReplicaGroups& groups);

// Expands the mesh form kept verbatim by the parser:
//   mesh['axis_0'=2,'axis_1'=4] {'axis_1'}            groups vary along the named axes
//   mesh[a=2,b=2], device_ids=([2,2]<=[2,2]T(1,0)) {b} with a device order (iota or list)
//   mesh['x'=4] {'x':(1)2}                             a sub-axis: (pre-size) size
//   maximal_mesh[device_id=3] {}                       one device
// Group size is the product of the named axes' sizes; the devices, the product of all.
StatusOr<std::vector<std::vector<int64_t>>> ExpandMeshReplicaGroups(std::string_view text);

// The devices of `inst`, given the module's replica_count and num_partitions (1 when the
// header does not say; widened to the largest id the groups name). NotFound when `inst`
// is not a cross-device collective; InvalidArgument when its groups cannot be read.
StatusOr<CollectiveDevices> DevicesOfCollective(const Instruction& inst);

// OK when a run on `devices` devices (global ids 0 .. devices-1) computes `inst` as the
// module's own devices would: every group that holds a device of the run holds only
// devices of the run, and every device of the run is in a group (collective-permute:
// every pair that sends to a device of the run sends from one; sending away does not
// change a device's own result). Groups of one ({{0},{1},{2},{3}}) fit one device.
// Otherwise an error naming the instruction, its opcode, its groups as written, the group
// that does not fit and the devices needed, led by "line:col: " when the instruction has
// a source location (the caller puts the file in front), e.g.
//   12:3: %all-reduce.3: all-reduce over replica_groups=[1,4]<=[4] (group {0,1,2,3})
//   needs 4 devices; this run has 1 (fusebox run --devices 4 runs it on the interpreter or
//   the CPU backend)
// Custom calls that only annotate their one operand and return it: shardings
// (Sharding, the SPMD shape changes, Shardy's), memory-space moves (MoveToHost,
// MoveToDevice, annotate_device_placement) and layout constraints. On one device, or
// after the partitioner consumed them, each is its operand (the interpreter runs them so;
// the sharding-remover pass removes them for the backends).
bool IsAnnotationCustomCall(std::string_view target);

// jax's Python callbacks (jax.debug.print, jax.pure_callback, io_callback):
// xla_[ffi_]python_{cpu,gpu}_callback. Fusebox cannot run Python.
bool IsHostCallbackCustomCall(std::string_view target);
// A Python callback whose result holds no value (an empty tuple: what jax.debug.print and
// an io_callback without results write): no value of the program depends on it, so it
// can be skipped, and is (the interpreter skips it, the host-callback-remover pass removes
// it for the backends), with a note (HostCallbackNotes). One with results is an error.
bool IsResultlessHostCallback(const Instruction& instruction);
// One note per resultless Python callback of `module`: "%debug_print.1 (line 13): ...".
std::vector<std::string> HostCallbackNotes(const Module& module);

// Instructions that are not cross-device collectives fit.
Status CheckCollectiveFits(const Instruction& inst, int64_t devices);

// CheckCollectiveFits over every instruction of every computation of `module`; the error
// is the first one in the text, with how many other collectives do not fit either.
Status CheckCollectivesFit(const Module& module, int64_t devices);

// `status` with the module's file in front: "file:line:col: ..." for a located message,
// "file: ..." otherwise; for callers whose users would see no file (the interpreter, the
// compile session).
Status WithModuleFile(const Module& module, const Status& status);

}  // namespace fusebox

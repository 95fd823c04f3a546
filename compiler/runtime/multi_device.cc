#include "compiler/runtime/multi_device.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <thread>

#include "compiler/ir/collectives.h"
#include "compiler/ir/computation.h"
#include "compiler/ir/instruction.h"
#include "compiler/runtime/cpu_executable.h"

namespace fusebox::runtime {
namespace {

int64_t SteadyNs() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Copies the box [offsets, offsets + box) of `from` (clipped to `from`'s bounds) to
// `to` at `to_offsets`, element rows at a time. Both literals are dense row-major.
void CopyBox(const Literal& from, const std::vector<int64_t>& from_offsets, Literal& to,
             const std::vector<int64_t>& to_offsets, const std::vector<int64_t>& box) {
  const std::vector<int64_t>& fd = from.shape().dimensions();
  const std::vector<int64_t>& td = to.shape().dimensions();
  const size_t rank = fd.size();
  const int64_t slot = from.slot_bytes();
  // The part of the box inside both arrays.
  std::vector<int64_t> extent(rank);
  for (size_t d = 0; d < rank; ++d) {
    extent[d] = std::min({box[d], fd[d] - from_offsets[d], td[d] - to_offsets[d]});
    if (extent[d] <= 0) return;
  }
  if (rank == 0) {
    std::memcpy(to.untyped_data(), from.untyped_data(), static_cast<size_t>(slot));
    return;
  }
  std::vector<int64_t> index(rank, 0);  // within the box, last dim stays 0
  while (true) {
    int64_t f = 0, t = 0;
    for (size_t d = 0; d < rank; ++d) {
      f = f * fd[d] + from_offsets[d] + index[d];
      t = t * td[d] + to_offsets[d] + index[d];
    }
    std::memcpy(to.untyped_data() + t * slot, from.untyped_data() + f * slot,
                static_cast<size_t>(extent[rank - 1] * slot));
    size_t d = rank - 1;
    while (d-- > 0) {
      if (++index[d] < extent[d]) break;
      index[d] = 0;
    }
    if (d == static_cast<size_t>(-1)) break;
  }
}

// The leaves of a literal, in order.
void LeafPtrs(Literal& l, std::vector<Literal*>& out) {
  if (l.shape().IsTuple()) {
    for (Literal& e : l.tuple_elements()) LeafPtrs(e, out);
  } else {
    out.push_back(&l);
  }
}
void LeafPtrs(const Literal& l, std::vector<const Literal*>& out) {
  if (l.shape().IsTuple()) {
    for (const Literal& e : l.tuple_elements()) LeafPtrs(e, out);
  } else {
    out.push_back(&l);
  }
}
void LeafShapesOf(const Shape& s, std::vector<Shape>& out) {
  if (s.IsTuple()) {
    for (const Shape& e : s.tuple_shapes()) LeafShapesOf(e, out);
  } else {
    out.push_back(s);
  }
}

// Leaf shardings of a (possibly tuple) value with `leaves` leaves.
StatusOr<std::vector<Sharding>> LeafShardings(const Sharding& s, size_t leaves, const std::string& what) {
  if (!s.IsTuple()) return std::vector<Sharding>(leaves, s);
  if (s.elements.size() != leaves) {
    return InvalidArgument(what + ": tuple sharding has " + std::to_string(s.elements.size()) + " elements for " +
                           std::to_string(leaves) + " array leaves");
  }
  return s.elements;
}

std::string ShapeText(const Shape& s) { return s.ToString(false); }

}  // namespace

StatusOr<Sharding> ParameterSharding(const Module& module, int64_t i) {
  ASSIGN_OR_RETURN(std::optional<Sharding> s, ShardingOf(*module.entry()->parameter(i)));
  return s.value_or(Sharding::Replicated());
}

StatusOr<Sharding> RootSharding(const Module& module) {
  ASSIGN_OR_RETURN(std::optional<Sharding> s, ShardingOf(*module.entry()->root()));
  return s.value_or(Sharding::Replicated());
}

StatusOr<std::vector<std::vector<Literal>>> SplitArguments(const Module& module, const std::vector<Literal>& global,
                                                           int64_t devices) {
  const Computation& entry = *module.entry();
  if (static_cast<int64_t>(global.size()) != entry.parameter_count()) {
    return InvalidArgument("the module has " + std::to_string(entry.parameter_count()) + " parameters; " +
                           std::to_string(global.size()) + " arguments were given");
  }
  std::vector<std::vector<Literal>> out(static_cast<size_t>(devices));
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    const Instruction& param = *entry.parameter(p);
    const std::string what = "parameter " + std::to_string(p) + " (%" + param.name() + ")";
    ASSIGN_OR_RETURN(Sharding sharding, ParameterSharding(module, p));
    const Literal& arg = global[static_cast<size_t>(p)];
    std::vector<Shape> local_leaves;
    LeafShapesOf(param.shape(), local_leaves);
    std::vector<const Literal*> arg_leaves;
    LeafPtrs(arg, arg_leaves);
    if (arg_leaves.size() != local_leaves.size()) {
      return InvalidArgument(what + ": the argument has " + std::to_string(arg_leaves.size()) +
                             " array leaves; the parameter " + std::to_string(local_leaves.size()));
    }
    ASSIGN_OR_RETURN(std::vector<Sharding> leaf_shardings, LeafShardings(sharding, local_leaves.size(), what));
    for (int64_t d = 0; d < devices; ++d) {
      Literal local(param.shape());
      std::vector<Literal*> local_ptrs;
      LeafPtrs(local, local_ptrs);
      for (size_t i = 0; i < local_leaves.size(); ++i) {
        const Sharding& s = leaf_shardings[i];
        const Literal& g = *arg_leaves[i];
        const Shape& ls = local_leaves[i];
        if (g.shape().element_type() != ls.element_type()) {
          return InvalidArgument(what + ": the argument is " + ShapeText(g.shape()) + "; the parameter holds " +
                                 ShapeText(ls));
        }
        if (g.shape().rank() != ls.rank()) {
          return InvalidArgument(what + ": the argument " + ShapeText(g.shape()) + " has another rank than " +
                                 ShapeText(ls));
        }
        if (s.IsManual() && devices > 1) {
          return InvalidArgument(what + " has sharding " + s.ToString() +
                                 ": a manual parameter has no global form to split");
        }
        // The global shape this tile comes from: each dim splits into TilesAlong tiles of
        // the local size (the last one short when padded).
        for (int64_t x = 0; x < ls.rank(); ++x) {
          int64_t tiles = s.TilesAlong(x);
          int64_t want = ls.dimensions(x);
          int64_t have = g.shape().dimensions(x);
          if ((have + tiles - 1) / tiles != want) {
            std::string hint = have == want && tiles > 1
                                   ? " (that is the per-device shape; give the global array, " +
                                         std::to_string(tiles) + " tiles of it along dim " + std::to_string(x) + ")"
                                   : "";
            return InvalidArgument(what + ": the argument " + ShapeText(g.shape()) + " does not split into tiles " +
                                   ShapeText(ls) + " by sharding " + s.ToString() + hint);
          }
        }
        if (s.kind == Sharding::Kind::kMaximal) {
          // Only its device holds it; others get zeros (they must not read it).
          if (d == s.device) CopyBox(g, std::vector<int64_t>(ls.rank(), 0), *local_ptrs[i],
                                     std::vector<int64_t>(ls.rank(), 0), ls.dimensions());
          continue;
        }
        std::vector<int64_t> offsets(static_cast<size_t>(ls.rank()), 0);
        if (s.IsTiled()) {
          auto index = s.TileIndexOf(d);
          if (!index) {
            return InvalidArgument(what + " has sharding " + s.ToString() + ", which does not name device " +
                                   std::to_string(d) + " of this " + std::to_string(devices) + "-device run");
          }
          for (int64_t x = 0; x < ls.rank(); ++x) offsets[static_cast<size_t>(x)] = (*index)[static_cast<size_t>(x)] * ls.dimensions(x);
        }
        CopyBox(g, offsets, *local_ptrs[i], std::vector<int64_t>(ls.rank(), 0), ls.dimensions());
      }
      out[static_cast<size_t>(d)].push_back(std::move(local));
    }
  }
  return out;
}

StatusOr<GlobalOutputs> GlobalOutputsOf(const Module& unpartitioned) {
  ASSIGN_OR_RETURN(std::optional<Sharding> s, ShardingOf(*unpartitioned.entry()->root()));
  if (!s) return NotFound("the root of " + unpartitioned.name() + " has no sharding");
  return GlobalOutputs{*s, unpartitioned.entry()->root()->shape()};
}

StatusOr<Literal> AssembleResult(const Module& module, const std::vector<Literal>& results, const Shape* global_shape,
                                 std::vector<std::string>* disagreements, const Sharding* root_sharding) {
  const int64_t devices = static_cast<int64_t>(results.size());
  if (devices == 0) return InvalidArgument("no device results to assemble");
  Sharding sharding;
  if (root_sharding != nullptr) {
    sharding = *root_sharding;
  } else {
    ASSIGN_OR_RETURN(sharding, RootSharding(module));
  }
  const Shape& local_shape = module.entry()->root()->shape();
  std::vector<Shape> local_leaves;
  LeafShapesOf(local_shape, local_leaves);
  ASSIGN_OR_RETURN(std::vector<Sharding> leaf_shardings, LeafShardings(sharding, local_leaves.size(), "the root"));
  // The global shape: given, or tiles × local.
  std::vector<Shape> global_leaves;
  if (global_shape != nullptr) {
    LeafShapesOf(*global_shape, global_leaves);
    if (global_leaves.size() != local_leaves.size()) return InvalidArgument("the global result shape has another tuple structure");
    // Dimensions from the global shape; the element type is the program's (a check's f64
    // shadow runs the same program widened).
    for (size_t i = 0; i < global_leaves.size(); ++i) {
      global_leaves[i].set_element_type(local_leaves[i].element_type());
      if (global_leaves[i].rank() != local_leaves[i].rank())
        return InvalidArgument("the global result shape " + global_leaves[i].ToString(false) + " has another rank than " +
                               local_leaves[i].ToString(false));
    }
  } else {
    for (size_t i = 0; i < local_leaves.size(); ++i) {
      Shape g = local_leaves[i];
      for (int64_t x = 0; x < g.rank(); ++x) g.set_dimension(x, g.dimensions(x) * leaf_shardings[i].TilesAlong(x));
      global_leaves.push_back(g);
    }
  }
  Shape whole = global_leaves.size() == 1 && !local_shape.IsTuple() ? global_leaves[0] : Shape::Tuple({});
  if (local_shape.IsTuple()) {
    // Rebuild the tuple structure with global leaves.
    size_t next = 0;
    std::function<Shape(const Shape&)> rebuild = [&](const Shape& s) -> Shape {
      if (!s.IsTuple()) return global_leaves[next++];
      std::vector<Shape> elements;
      for (const Shape& e : s.tuple_shapes()) elements.push_back(rebuild(e));
      return Shape::Tuple(elements);
    };
    whole = rebuild(local_shape);
  }
  Literal out(whole);
  std::vector<Literal*> out_leaves;
  LeafPtrs(out, out_leaves);
  std::vector<std::vector<const Literal*>> dev_leaves(static_cast<size_t>(devices));
  for (int64_t d = 0; d < devices; ++d) {
    LeafPtrs(results[static_cast<size_t>(d)], dev_leaves[static_cast<size_t>(d)]);
    if (dev_leaves[static_cast<size_t>(d)].size() != local_leaves.size())
      return Internal("device " + std::to_string(d) + " returned another number of outputs");
  }
  for (size_t i = 0; i < local_leaves.size(); ++i) {
    const Sharding& s = leaf_shardings[i];
    const std::string what = "output " + std::to_string(i);
    if (s.IsManual() && devices > 1) {
      return InvalidArgument(what + " has sharding " + s.ToString() + ": a manual result has no global form");
    }
    // Which device supplies each tile, and who else holds the same tile.
    std::map<std::vector<int64_t>, std::vector<int64_t>> holders;
    for (int64_t d = 0; d < devices; ++d) {
      std::vector<int64_t> tile(static_cast<size_t>(local_leaves[i].rank()), 0);
      if (s.kind == Sharding::Kind::kMaximal) {
        if (d != s.device) continue;
      } else if (s.IsTiled()) {
        auto index = s.TileIndexOf(d);
        if (!index) continue;
        for (size_t x = 0; x < tile.size(); ++x) tile[x] = (*index)[x];
      }
      holders[tile].push_back(d);
    }
    if (holders.empty()) return InvalidArgument(what + ": no device of the run holds it (sharding " + s.ToString() + ")");
    for (const auto& [tile, devs] : holders) {
      const Literal& src = *dev_leaves[static_cast<size_t>(devs[0])][i];
      std::vector<int64_t> offsets(tile.size());
      for (size_t x = 0; x < tile.size(); ++x) offsets[x] = tile[x] * local_leaves[i].dimensions(static_cast<int64_t>(x));
      CopyBox(src, std::vector<int64_t>(tile.size(), 0), *out_leaves[i], offsets, local_leaves[i].dimensions());
      if (disagreements == nullptr) continue;
      for (size_t k = 1; k < devs.size(); ++k) {
        const Literal& other = *dev_leaves[static_cast<size_t>(devs[k])][i];
        if (other.size_bytes() != src.size_bytes() ||
            std::memcmp(other.untyped_data(), src.untyped_data(), static_cast<size_t>(src.size_bytes())) != 0) {
          disagreements->push_back(what + " (" + s.ToString() + "): devices " + std::to_string(devs[0]) + " and " +
                                   std::to_string(devs[k]) + " hold different values for the same " +
                                   (s.IsTiled() ? "tile" : "replicated array") + "; the result shows device " +
                                   std::to_string(devs[0]) + "'s");
          break;
        }
      }
    }
  }
  return out;
}

StatusOr<std::vector<Shape>> GlobalParameterShapes(const Module& module, const Module* unpartitioned) {
  const Computation& entry = *module.entry();
  std::vector<Shape> shapes;
  if (unpartitioned != nullptr) {
    const Computation& g = *unpartitioned->entry();
    if (g.parameter_count() != entry.parameter_count()) {
      return InvalidArgument("the module before partitioning has " + std::to_string(g.parameter_count()) +
                             " parameters; the partitioned one " + std::to_string(entry.parameter_count()));
    }
    for (int64_t p = 0; p < g.parameter_count(); ++p) shapes.push_back(g.parameter(p)->shape());
    return shapes;
  }
  for (int64_t p = 0; p < entry.parameter_count(); ++p) {
    ASSIGN_OR_RETURN(Sharding s, ParameterSharding(module, p));
    const Shape& local = entry.parameter(p)->shape();
    if (local.IsTuple()) {
      Shape g = local;
      for (int64_t i = 0; i < g.tuple_size(); ++i) {
        Shape& leaf = (*g.mutable_tuple_shapes())[static_cast<size_t>(i)];
        const Sharding& ls = s.Leaf(static_cast<size_t>(i));
        for (int64_t x = 0; x < leaf.rank(); ++x) leaf.set_dimension(x, leaf.dimensions(x) * ls.TilesAlong(x));
      }
      shapes.push_back(g);
      continue;
    }
    Shape g = local;
    for (int64_t x = 0; x < g.rank(); ++x) g.set_dimension(x, g.dimensions(x) * s.TilesAlong(x));
    shapes.push_back(g);
  }
  return shapes;
}

StatusOr<std::unique_ptr<Module>> GlobalParameterView(const Module& module, const std::vector<Shape>& shapes) {
  std::unique_ptr<Module> view = module.Clone();
  if (view == nullptr) return Internal("cannot copy module " + module.name());
  // Messages of runs of the view give lines of the printed module (copies used to be
  // reparsed).
  view->LocateInPrintedText();
  Computation* entry = view->entry();
  if (static_cast<int64_t>(shapes.size()) != entry->parameter_count())
    return InvalidArgument("global parameter shapes do not match the parameters");
  for (int64_t p = 0; p < entry->parameter_count(); ++p) {
    Shape shape = shapes[static_cast<size_t>(p)];
    *entry->parameter(p)->mutable_shape() = shape;
  }
  return view;
}

StatusOr<MultiDeviceResult> RunOnDevices(const Module& module, const std::vector<Literal>& global_arguments,
                                         const MultiDeviceOptions& options) {
  const int64_t devices = options.devices > 0 ? options.devices : DevicesOfModule(module);
  if (devices > 4096) return InvalidArgument("a run on " + std::to_string(devices) + " devices is too large");
  RETURN_IF_ERROR(WithModuleFile(module, CheckCollectivesFit(module, devices)));
  ASSIGN_OR_RETURN(std::vector<std::vector<Literal>> args, SplitArguments(module, global_arguments, devices));
  interpreter::CollectiveHub hub(devices);
  const int64_t partitions = std::max<int64_t>(1, module.num_partitions.value_or(1));
  std::vector<StatusOr<Literal>> results(static_cast<size_t>(devices), StatusOr<Literal>(Internal("not run")));
  std::vector<int64_t> wall(static_cast<size_t>(devices), 0);
  if (options.backend == DeviceBackend::kCpu) {
    if (options.cpu == nullptr) return InvalidArgument("a CPU multi-device run needs a compiled executable");
    options.cpu->PrepareSlots(static_cast<int>(devices));
  }
  auto run_device = [&](int64_t d) {
    const int64_t start = SteadyNs();
    const uint32_t replica = static_cast<uint32_t>(d / partitions);
    const uint32_t partition = static_cast<uint32_t>(d % partitions);
    StatusOr<Literal> r = Internal("not run");
    if (options.backend == DeviceBackend::kInterpreter) {
      interpreter::InterpreterOptions io = options.interpreter;
      if (options.cancel != nullptr) io.cancel = options.cancel;
      io.hub = &hub;
      io.device = d;
      io.replica_id = replica;
      io.partition_id = partition;
      interpreter::Interpreter interpreter(io);
      r = interpreter.Run(module, args[static_cast<size_t>(d)]);
    } else {
      CpuRunOptions ro;
      ro.hub = &hub;
      ro.device = d;
      ro.replica_id = replica;
      ro.partition_id = partition;
      ro.slot = static_cast<int>(d);
      ro.cancel = options.cancel;
      ro.iteration = options.iteration;
      if (static_cast<size_t>(d) < options.observers.size()) ro.observer = options.observers[static_cast<size_t>(d)];
      r = options.cpu->Run(args[static_cast<size_t>(d)], ro);
    }
    wall[static_cast<size_t>(d)] = SteadyNs() - start;
    hub.DeviceStopped(d, r.ok() ? Status::Ok() : r.status());
    results[static_cast<size_t>(d)] = std::move(r);
  };
  std::vector<std::thread> threads;
  threads.reserve(static_cast<size_t>(devices));
  for (int64_t d = 0; d < devices; ++d) threads.emplace_back(run_device, d);
  for (std::thread& t : threads) t.join();
  // The first error in device order; one caused by another device's failure (a collective
  // that could not complete) ranks after the original failure.
  const Status* first = nullptr;
  int64_t first_device = -1;
  for (int64_t d = 0; d < devices; ++d) {
    const auto& r = results[static_cast<size_t>(d)];
    if (r.ok()) continue;
    bool secondary = std::string(r.status().message()).find("cannot complete") != std::string::npos;
    if (first == nullptr || (!secondary && std::string(first->message()).find("cannot complete") != std::string::npos)) {
      first = &r.status();
      first_device = d;
    }
  }
  if (options.cancel != nullptr && options.cancel->load(std::memory_order_relaxed)) return Cancelled();
  if (first != nullptr) {
    return Status(first->code(), "device " + std::to_string(first_device) + ": " + std::string(first->message()));
  }
  MultiDeviceResult out;
  out.devices = devices;
  for (auto& r : results) out.per_device.push_back(std::move(*r));
  ASSIGN_OR_RETURN(out.global, AssembleResult(module, out.per_device, options.global_result_shape, &out.disagreements,
                                                   options.root_sharding));
  out.collectives = hub.events();
  out.device_wall_ns = wall;
  return out;
}

StatusOr<Literal> RunGlobal(const Module& module, const std::vector<Literal>& global_args, int64_t devices) {
  MultiDeviceOptions options;
  options.devices = devices;
  ASSIGN_OR_RETURN(MultiDeviceResult r, RunOnDevices(module, global_args, options));
  return std::move(r.global);
}

}  // namespace fusebox::runtime

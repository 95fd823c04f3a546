// The HLO verifier: module structure (entry, roots, unique names, parameter numbering,
// cycles, callers of fused computations, entry layout and aliasing) and, per instruction,
// operand counts, called-computation counts and declared-vs-inferred shapes.
#include "compiler/verifier/verifier.h"

#include "compiler/ir/sharding.h"

#include <algorithm>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <unordered_map>

#include "compiler/verifier/shape_inference.h"

namespace fusebox {

namespace {

std::string Str(const Shape& shape) { return shape.ToString(/*print_layout=*/false); }

template <typename... Args>
std::string Cat(const Args&... args) {
  std::ostringstream os;
  (os << ... << args);
  return os.str();
}

// Attributes the parser keeps as raw text on purpose; anything else in `raw` is unknown.
bool IsKnownRawAttribute(const std::string& name) {
  return name == "origin" || name == "result_accuracy" || name == "domain" || name == "literal";
}

// The subshape at `index`, or null when the index does not exist.
const Shape* Subshape(const Shape& shape, const std::vector<int64_t>& index) {
  const Shape* s = &shape;
  for (int64_t i : index) {
    if (!s->IsTuple() || i < 0 || i >= s->tuple_size()) return nullptr;
    s = &s->tuple_shapes(i);
  }
  return s;
}

std::string IndexString(const std::vector<int64_t>& index) {
  std::ostringstream os;
  os << "{";
  for (size_t i = 0; i < index.size(); ++i) os << (i ? "," : "") << index[i];
  os << "}";
  return os.str();
}

// Layouts agree when every array leaf that has a layout on both sides has the same one.
bool LayoutsAgree(const Shape& a, const Shape& b) {
  if (a.IsTuple() && b.IsTuple()) {
    if (a.tuple_size() != b.tuple_size()) return false;
    for (int64_t i = 0; i < a.tuple_size(); ++i) {
      if (!LayoutsAgree(a.tuple_shapes(i), b.tuple_shapes(i))) return false;
    }
    return true;
  }
  if (a.has_layout() && b.has_layout()) return a.layout() == b.layout();
  return true;
}

std::string WithLayout(const Shape& shape) { return shape.ToString(/*print_layout=*/true); }

// Operand count rule for an opcode: fixed arity, or a variadic rule. Returns an empty
// string when `ins` satisfies it, else what is expected.
std::string OperandCountProblem(const Instruction& ins) {
  const Opcode op = ins.opcode();
  const int64_t n = ins.operand_count();
  const int arity = OpcodeArity(op);
  auto expect = [&](const std::string& want) {
    return Cat(OpcodeName(op), " expects ", want, ", got ", n, " operand(s)");
  };
  switch (op) {
    case Opcode::kDot:
      // Sparse dots carry their metadata as extra operands.
      if (!ins.attrs().sparsity.empty()) return n >= 2 && n <= 4 ? "" : expect("2 to 4 operands");
      return n == 2 ? "" : expect("2 operands");
    case Opcode::kConvolution:
      return n == 2 ? "" : expect("2 operands");
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
      return n >= 2 && n % 2 == 0 ? "" : expect("N inputs and N init values (an even count >= 2)");
    case Opcode::kScatter:
      return n >= 3 && n % 2 == 1 ? ""
                                  : expect("N operands, indices and N updates (an odd count >= 3)");
    case Opcode::kDynamicSlice: {
      if (n < 1) return expect("an operand and its start indices");
      const Shape& x = ins.operand(0)->shape();
      if (!x.IsArray()) return "";
      if (n == 1 + x.rank()) return "";
      if (n == 2 && ins.operand(1)->shape().rank() == 1) return "";  // index-vector form
      return expect(
          Cat(1 + x.rank(), " operands (operand + one start index per dimension of ", Str(x), ")"));
    }
    case Opcode::kDynamicUpdateSlice: {
      if (n < 2) return expect("an operand, an update and start indices");
      const Shape& x = ins.operand(0)->shape();
      if (!x.IsArray()) return "";
      if (n == 2 + x.rank()) return "";
      if (n == 3 && ins.operand(2)->shape().rank() == 1) return "";
      return expect(Cat(2 + x.rank(),
                        " operands (operand + update + one start index per dimension of ", Str(x),
                        ")"));
    }
    case Opcode::kDynamicReshape:
      if (!ins.shape().IsArray()) return "";
      return n == 1 + ins.shape().rank()
                 ? ""
                 : expect(Cat(1 + ins.shape().rank(),
                              " operands (operand + one size per result dimension)"));
    case Opcode::kRng:
      return n == 2 ? "" : expect("2 operands");
    case Opcode::kConcatenate:
    case Opcode::kConditional:
    case Opcode::kMap:
    case Opcode::kSort:
    case Opcode::kAllGather:
    case Opcode::kAllGatherStart:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kAllToAll:
    case Opcode::kReduceScatter:
    case Opcode::kCollectiveBroadcast:
    case Opcode::kCollectivePermute:
    case Opcode::kCollectivePermuteStart:
    case Opcode::kCollectiveReduce:
    case Opcode::kAsyncUpdate:
    case Opcode::kScan:
      return n >= 1 ? "" : expect("at least 1 operand");
    default:
      break;
  }
  if (arity == kVariadic) return "";  // after-all, call, custom-call, fusion, tuple, ...
  return n == arity ? "" : expect(Cat(arity, " operand(s)"));
}

// How many computations an opcode must call: {min, max}; max -1 for no limit. Opcodes not
// listed are not checked.
std::optional<std::pair<int64_t, int64_t>> CalledComputationCount(Opcode op) {
  switch (op) {
    case Opcode::kReduce:
    case Opcode::kReduceWindow:
    case Opcode::kMap:
    case Opcode::kSort:
    case Opcode::kScatter:
    case Opcode::kAllReduce:
    case Opcode::kAllReduceStart:
    case Opcode::kReduceScatter:
    case Opcode::kCall:
    case Opcode::kFusion:
      return std::make_pair(int64_t{1}, int64_t{1});
    case Opcode::kWhile:
    case Opcode::kSelectAndScatter:
      return std::make_pair(int64_t{2}, int64_t{2});
    case Opcode::kConditional:
      return std::make_pair(int64_t{1}, int64_t{-1});
    default:
      return std::nullopt;
  }
}

std::string CalledRoleText(Opcode op) {
  switch (op) {
    case Opcode::kWhile:
      return "a condition and a body";
    case Opcode::kSelectAndScatter:
      return "select and scatter computations";
    case Opcode::kConditional:
      return "branch computations";
    case Opcode::kFusion:
      return "one fused computation (calls=)";
    default:
      return "one to_apply computation";
  }
}

class ModuleVerifier {
 public:
  ModuleVerifier(const Module& module, const VerifierOptions& options)
      : module_(module), options_(options) {}

  std::vector<VerifierIssue> Run() {
    if (module_.entry() == nullptr) {
      ReportModule(Cat("module ", module_.name(), " has no entry computation"));
    }
    CheckUniqueNames();
    for (const auto& c : module_.computations()) CheckComputation(*c);
    CheckCallers();
    CheckEntryLayout();
    CheckAliasing();
    return std::move(issues_);
  }

 private:
  // ---- Reporting -------------------------------------------------------------------

  std::string Where(SourceLocation loc) const {
    if (!loc.known()) return options_.filename + ": ";
    return Cat(options_.filename, ":", loc.line, ":", loc.column, ": ");
  }

  void Report(VerifierIssue::Severity severity, const Computation* c, const Instruction* ins,
              const std::string& what) {
    VerifierIssue issue;
    issue.severity = severity;
    issue.instruction = ins;
    SourceLocation loc = ins != nullptr ? ins->location() : (c ? c->location() : SourceLocation{});
    std::string text = Where(loc);
    if (c != nullptr) {
      text += "in computation %" + c->name();
      if (ins != nullptr) text += ", instruction %" + ins->name();
      text += ": ";
    }
    issue.message = text + what;
    issues_.push_back(std::move(issue));
  }

  void Error(const Computation* c, const Instruction* ins, const std::string& what) {
    Report(VerifierIssue::Severity::kError, c, ins, what);
  }
  void Warning(const Computation* c, const Instruction* ins, const std::string& what) {
    Report(VerifierIssue::Severity::kWarning, c, ins, what);
  }
  void ReportModule(const std::string& what) { Error(nullptr, nullptr, what); }

  static std::string LineOf(SourceLocation loc) {
    return loc.known() ? Cat(" (line ", loc.line, ")") : std::string();
  }

  // ---- Module-wide structure -------------------------------------------------------

  void CheckUniqueNames() {
    std::unordered_map<std::string, const Computation*> computations;
    std::unordered_map<std::string, const Instruction*> instructions;
    for (const auto& c : module_.computations()) {
      if (!options_.module_unique_instruction_names) instructions.clear();
      auto [it, inserted] = computations.emplace(c->name(), c.get());
      if (!inserted) {
        Error(c.get(), nullptr,
              Cat("computation name %", c->name(), " is already used",
                  LineOf(it->second->location())));
      }
      for (const auto& ins : c->instructions()) {
        auto [at, fresh] = instructions.emplace(ins->name(), ins.get());
        if (!fresh) {
          Error(c.get(), ins.get(),
                Cat("instruction name %", ins->name(), " is already used in computation %",
                    at->second->parent() ? at->second->parent()->name() : std::string("?"),
                    LineOf(at->second->location())));
        }
      }
    }
  }

  void CheckComputation(const Computation& c) {
    if (c.root() == nullptr) {
      Error(&c, nullptr, "computation has no root instruction");
    } else if (c.root()->parent() != &c) {
      Error(&c, nullptr, Cat("root %", c.root()->name(), " belongs to another computation"));
    }
    CheckParameterNumbers(c);
    CheckCycles(c);
    for (const auto& ins : c.instructions()) CheckInstruction(c, *ins);
  }

  void CheckParameterNumbers(const Computation& c) {
    std::vector<const Instruction*> params;
    for (const auto& ins : c.instructions()) {
      if (ins->opcode() == Opcode::kParameter) params.push_back(ins.get());
    }
    const int64_t count = static_cast<int64_t>(params.size());
    std::map<int64_t, const Instruction*> seen;
    for (const Instruction* p : params) {
      const int64_t n = p->parameter_number();
      auto [it, fresh] = seen.emplace(n, p);
      if (!fresh) {
        Error(&c, p,
              Cat("duplicate parameter number ", n, ": also used by %", it->second->name(),
                  LineOf(it->second->location())));
      } else if (n < 0 || n >= count) {
        Error(&c, p,
              Cat("parameter number ", n, " leaves a gap: the computation has ", count,
                  " parameter(s), so they must be numbered 0..", count - 1));
      }
    }
  }

  // Operands and control predecessors must form a DAG inside the computation.
  void CheckCycles(const Computation& c) {
    enum Color : uint8_t { kWhite, kGray, kBlack };
    std::unordered_map<const Instruction*, Color> color;
    struct Frame {
      const Instruction* ins;
      size_t next;
    };
    auto deps = [](const Instruction* ins, size_t i) -> const Instruction* {
      const size_t n = ins->operands().size();
      return i < n ? ins->operands()[i] : ins->control_predecessors()[i - n];
    };
    for (const auto& start : c.instructions()) {
      if (color[start.get()] != kWhite) continue;
      std::vector<Frame> stack = {{start.get(), 0}};
      color[start.get()] = kGray;
      while (!stack.empty()) {
        Frame& top = stack.back();
        const size_t total = top.ins->operands().size() + top.ins->control_predecessors().size();
        if (top.next == total) {
          color[top.ins] = kBlack;
          stack.pop_back();
          continue;
        }
        const Instruction* dep = deps(top.ins, top.next++);
        if (dep == nullptr || dep->parent() != &c) continue;  // reported per instruction
        Color& dc = color[dep];
        if (dc == kWhite) {
          dc = kGray;
          stack.push_back({dep, 0});
        } else if (dc == kGray) {
          // The cycle is the stack from `dep` up to the top.
          std::string path;
          auto from = std::find_if(stack.begin(), stack.end(),
                                   [&](const Frame& f) { return f.ins == dep; });
          for (auto it = from; it != stack.end(); ++it) path += "%" + it->ins->name() + " -> ";
          path += "%" + dep->name();
          Error(&c, dep,
                Cat("instruction is part of a cycle: ", path,
                    " (each uses the next as an operand or control predecessor)"));
          return;  // one report per computation is enough
        }
      }
    }
  }

  // ---- Instructions ----------------------------------------------------------------

  // A sharding must read (XLA's text) and fit the shape it splits: as many data dims as
  // the array has, one element per leaf for a tuple sharding of a tuple (one for a tuple
  // without leaves, jax's `()` of a debug print).
  void CheckSharding(const Computation& c, const Instruction& ins) {
    if (!ins.attrs().has_sharding) return;
    auto parsed = ParseSharding("{" + ins.attrs().sharding + "}");
    if (!parsed.ok()) {
      Error(&c, &ins, std::string(parsed.status().message()));
      return;
    }
    const Sharding& s = *parsed;
    if (s.IsTuple() && ins.shape().IsTuple()) {
      int64_t leaves = 0;
      ForEachSubshape(ins.shape(), [&](const Shape& sub, const std::vector<int64_t>&) { leaves += sub.IsTuple() ? 0 : 1; });
      leaves = std::max<int64_t>(leaves, 1);  // as XLA: a shape without leaves takes one element
      if (static_cast<int64_t>(s.elements.size()) != leaves && !s.elements.empty()) {
        Error(&c, &ins, Cat("tuple sharding has ", s.elements.size(), " element(s) for ", leaves, " leaves"));
      }
      return;
    }
    if (s.IsTiled() && ins.shape().IsArray() && s.DataRank() != ins.shape().rank()) {
      Error(&c, &ins, Cat("sharding ", s.ToString(), " splits ", s.DataRank(), " dim(s) of a rank-",
                          ins.shape().rank(), " array"));
    }
  }

  void CheckInstruction(const Computation& c, const Instruction& ins) {
    CheckSharding(c, ins);
    bool structural_ok = true;
    for (int64_t i = 0; i < ins.operand_count(); ++i) {
      const Instruction* op = ins.operand(i);
      if (op == nullptr) {
        Error(&c, &ins, Cat("operand ", i, " is missing"));
        structural_ok = false;
      } else if (op->parent() != &c) {
        Error(&c, &ins, Cat("operand ", i, " %", op->name(), " belongs to another computation"));
        structural_ok = false;
      }
    }
    for (const Instruction* pred : ins.control_predecessors()) {
      if (pred != nullptr && pred->parent() != &c) {
        Error(&c, &ins,
              Cat("control predecessor %", pred->name(), " belongs to another computation"));
      }
    }
    if (!structural_ok) return;

    const std::string count_problem = OperandCountProblem(ins);
    if (!count_problem.empty()) {
      Error(&c, &ins, count_problem);
      structural_ok = false;
    }
    if (auto calls = CalledComputationCount(ins.opcode())) {
      const int64_t n = static_cast<int64_t>(ins.called_computations().size());
      const bool null_call = std::count(ins.called_computations().begin(),
                                        ins.called_computations().end(), nullptr) > 0;
      if (n < calls->first || (calls->second >= 0 && n > calls->second) || null_call) {
        Error(&c, &ins,
              Cat(OpcodeName(ins.opcode()), " must call ", CalledRoleText(ins.opcode()),
                  ", but calls ", n, " computation(s)"));
        structural_ok = false;
      }
    }

    if (ins.opcode() == Opcode::kConstant) CheckConstant(c, ins);
    CheckRawAttributes(c, ins);
    if (!structural_ok) return;

    StatusOr<Shape> inferred = InferShape(ins);
    if (!inferred.ok()) {
      if (inferred.status().code() != StatusCode::kUnimplemented) {
        Error(&c, &ins, inferred.status().message());
      }
      return;
    }
    if (!ShapesAgree(ins.shape(), *inferred)) {
      std::string operands;
      for (int64_t i = 0; i < ins.operand_count(); ++i) {
        operands += (i ? ", " : "") + Str(ins.operand(i)->shape());
      }
      Error(&c, &ins,
            Cat("declared shape ", Str(ins.shape()), " does not match the inferred shape ",
                Str(*inferred), " of ", OpcodeName(ins.opcode()), "(", operands, ")"));
    }
  }

  void CheckConstant(const Computation& c, const Instruction& ins) {
    const Literal* literal = ins.literal();
    if (literal == nullptr) {
      if (!ins.literal_elided()) Error(&c, &ins, "constant has no literal");
      return;
    }
    if (!ShapesAgree(literal->shape(), ins.shape())) {
      Error(&c, &ins,
            Cat("constant literal has shape ", Str(literal->shape()),
                " but the instruction declares ", Str(ins.shape())));
    }
  }

  void CheckRawAttributes(const Computation& c, const Instruction& ins) {
    if (!ins.has_attributes()) return;
    for (const RawAttribute& raw : ins.attrs().raw) {
      if (IsKnownRawAttribute(raw.name)) continue;
      Warning(&c, &ins, Cat("unknown attribute '", raw.name, "' is kept verbatim and not checked"));
    }
  }

  // ---- Callers of computations -----------------------------------------------------

  void CheckCallers() {
    std::unordered_map<const Computation*, std::vector<const Instruction*>> callers;
    for (const auto& c : module_.computations()) {
      for (const auto& ins : c->instructions()) {
        for (const Computation* callee : ins->called_computations()) {
          if (callee != nullptr) callers[callee].push_back(ins.get());
        }
      }
    }
    for (const auto& c : module_.computations()) {
      auto it = callers.find(c.get());
      if (it == callers.end()) continue;
      const std::vector<const Instruction*>& list = it->second;
      auto fusion = std::find_if(list.begin(), list.end(), [](const Instruction* i) {
        return i->opcode() == Opcode::kFusion;
      });
      if (fusion == list.end() || list.size() < 2) continue;
      for (const Instruction* other : list) {
        if (other == *fusion) continue;
        Error(other->parent(), other,
              Cat("calls %", c->name(), ", which is the fused computation of %", (*fusion)->name(),
                  LineOf((*fusion)->location()), "; a fused computation must have one caller"));
      }
    }
  }

  // ---- Entry layout and aliasing ---------------------------------------------------

  std::vector<const Instruction*> EntryParameters() const {
    std::vector<const Instruction*> params;
    const Computation* entry = module_.entry();
    for (const auto& ins : entry->instructions()) {
      if (ins->opcode() != Opcode::kParameter) continue;
      const int64_t n = ins->parameter_number();
      if (n < 0 || n >= entry->instruction_count()) continue;
      if (static_cast<int64_t>(params.size()) <= n) params.resize(n + 1, nullptr);
      if (params[n] == nullptr) params[n] = ins.get();
    }
    return params;
  }

  void CheckEntryLayout() {
    const Computation* entry = module_.entry();
    if (entry == nullptr || !module_.entry_computation_layout) return;
    const ComputationLayout& layout = *module_.entry_computation_layout;
    const std::vector<const Instruction*> params = EntryParameters();
    if (layout.parameters.size() != params.size()) {
      Error(entry, nullptr,
            Cat("entry_computation_layout lists ", layout.parameters.size(),
                " parameter(s) but the entry computation takes ", params.size()));
    }
    const size_t n = std::min(layout.parameters.size(), params.size());
    for (size_t i = 0; i < n; ++i) {
      const Instruction* p = params[i];
      if (p == nullptr) continue;
      const Shape& want = layout.parameters[i];
      if (!ShapesAgree(want, p->shape())) {
        Error(entry, p,
              Cat("entry_computation_layout parameter ", i, " is ", Str(want),
                  " but the parameter is declared ", Str(p->shape())));
      } else if (options_.check_layouts && !LayoutsAgree(want, p->shape())) {
        Error(entry, p,
              Cat("entry_computation_layout parameter ", i, " has layout ", WithLayout(want),
                  " but the parameter is declared ", WithLayout(p->shape())));
      }
    }
    const Instruction* root = entry->root();
    if (root == nullptr) return;
    if (!ShapesAgree(layout.result, root->shape())) {
      Error(entry, root,
            Cat("entry_computation_layout result is ", Str(layout.result),
                " but the entry root is ", Str(root->shape())));
    } else if (options_.check_layouts && !LayoutsAgree(layout.result, root->shape())) {
      Error(entry, root,
            Cat("entry_computation_layout result has layout ", WithLayout(layout.result),
                " but the entry root is ", WithLayout(root->shape())));
    }
  }

  void CheckAliasing() {
    const Computation* entry = module_.entry();
    if (entry == nullptr) return;
    const std::vector<const Instruction*> params = EntryParameters();
    const Instruction* root = entry->root();
    std::set<std::vector<int64_t>> outputs;
    for (const InputOutputAlias& alias : module_.input_output_alias) {
      const std::string what =
          Cat("input_output_alias ", IndexString(alias.output_index), ": (", alias.parameter_number,
              ", ", IndexString(alias.parameter_index), ")");
      const Shape* out = root ? Subshape(root->shape(), alias.output_index) : nullptr;
      if (root != nullptr && out == nullptr) {
        Error(entry, nullptr,
              Cat(what, ": output index does not exist in the result ", Str(root->shape())));
        continue;
      }
      if (!outputs.insert(alias.output_index).second) {
        Error(entry, nullptr, Cat(what, ": output index is aliased more than once"));
      }
      const Shape* in =
          CheckParameterIndex(entry, params, alias.parameter_number, alias.parameter_index, what);
      if (in == nullptr || out == nullptr) continue;
      if (in->IsArray() && out->IsArray() && in->ByteSize() >= 0 && out->ByteSize() >= 0 &&
          in->ByteSize() != out->ByteSize()) {
        Error(entry, nullptr,
              Cat(what, ": the parameter ", Str(*in), " and the output ", Str(*out),
                  " have different sizes"));
      }
    }
    for (const BufferDonor& donor : module_.buffer_donor) {
      const std::string what = Cat("buffer_donor (", donor.parameter_number, ", ",
                                   IndexString(donor.parameter_index), ")");
      CheckParameterIndex(entry, params, donor.parameter_number, donor.parameter_index, what);
    }
  }

  const Shape* CheckParameterIndex(const Computation* entry,
                                   const std::vector<const Instruction*>& params, int64_t number,
                                   const std::vector<int64_t>& index, const std::string& what) {
    if (number < 0 || number >= static_cast<int64_t>(params.size()) || params[number] == nullptr) {
      Error(entry, nullptr, Cat(what, ": the entry computation has no parameter ", number));
      return nullptr;
    }
    const Shape* s = Subshape(params[number]->shape(), index);
    if (s == nullptr) {
      Error(entry, params[number],
            Cat(what, ": index ", IndexString(index), " does not exist in the parameter ",
                Str(params[number]->shape())));
    }
    return s;
  }

  const Module& module_;
  const VerifierOptions& options_;
  std::vector<VerifierIssue> issues_;
};

}  // namespace

std::vector<VerifierIssue> VerifyModule(const Module& module, const VerifierOptions& options) {
  return ModuleVerifier(module, options).Run();
}

Status Verify(const Module& module, const VerifierOptions& options) {
  constexpr int kMaxListed = 20;
  int errors = 0;
  std::string message;
  for (const VerifierIssue& issue : VerifyModule(module, options)) {
    if (issue.severity != VerifierIssue::Severity::kError) continue;
    if (errors < kMaxListed) {
      if (errors > 0) message += "\n";
      message += issue.message;
    }
    ++errors;
  }
  if (errors == 0) return Status::Ok();
  if (errors > kMaxListed) message += Cat("\n... and ", errors - kMaxListed, " more error(s)");
  return InvalidArgument(message);
}

}  // namespace fusebox
